import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { BUILTIN_RESOURCES, Client } from '@svc/client';
import { Container, injectable } from 'inversify';
import { Reconciler } from '../decorators/reconciler.decorator';
import type { Reconcile } from '../reconcile/reconcile';
import type { Request } from '../reconcile/request';
import { eventually } from '../testing';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { createManager } from './create-manager';
import { Manager } from './manager';
import { RuntimeModule } from './runtime.module';

const silent = { info: () => undefined, error: () => undefined };
let env: TestEnvironment;

beforeAll(async () => {
  env = await startTestEnvironment();
  await env.client.namespaces.create({ metadata: { name: 'nest' } });
  await env.client.namespaces.create({ metadata: { name: 'plain' } });
});
afterAll(async () => {
  await env?.stop();
});

@Injectable()
@injectable()
class Journal {
  readonly entries: string[] = [];
}

describe('one code path, two containers', () => {
  it('runs @Reconciler providers of a Nest application with their Nest dependencies', async () => {
    @Reconciler({ for: BUILTIN_RESOURCES.configMaps, namespace: 'nest' })
    class NestReconciler implements Reconcile {
      constructor(
        readonly journal: Journal,
        readonly client: Client,
      ) {}
      reconcile(request: Request): void {
        this.journal.entries.push(request.name);
      }
    }
    @Module({ providers: [Journal, NestReconciler] })
    class AppModule {}
    @Module({ imports: [RuntimeModule.forRoot({ clientConfig: env.clientConfig, logger: silent }), AppModule] })
    class RootModule {}

    const app = await NestFactory.createApplicationContext(RootModule, { logger: false });
    try {
      const manager = app.get(Manager);
      expect(manager.getControllers()).toHaveLength(1);
      // The instance the manager runs is the one Nest made; the client it got is the manager's.
      expect(manager.getControllers()[0].reconciler).toBe(app.get(NestReconciler));
      expect(app.get(NestReconciler).client).toBe(manager.client);
      await env.client.configMaps.inNamespace('nest').create({ metadata: { name: 'from-nest' } });
      await eventually(() => expect(app.get(Journal).entries).toContain('from-nest'));
    } finally {
      await app.close();
    }
  });

  it('runs reconciler classes standalone, resolved from an inversify container', async () => {
    @Reconciler({ for: BUILTIN_RESOURCES.configMaps, namespace: 'plain' })
    class PlainReconciler implements Reconcile {
      constructor(
        readonly journal: Journal,
        readonly client: Client,
      ) {}
      reconcile(request: Request): void {
        this.journal.entries.push(request.name);
      }
    }
    const container = new Container();
    container.bind(Journal).toSelf().inSingletonScope();
    const { manager } = createManager({ clientConfig: env.clientConfig, reconcilers: [PlainReconciler], container, logger: silent });
    try {
      await manager.start();
      expect(manager.getControllers()[0].reconciler).toBe(container.get(PlainReconciler));
      expect(container.get(PlainReconciler).client).toBe(manager.client);
      await env.client.configMaps.inNamespace('plain').create({ metadata: { name: 'from-plain' } });
      await eventually(() => expect(container.get(Journal).entries).toContain('from-plain'));
    } finally {
      await manager.stop();
    }
  });
});
