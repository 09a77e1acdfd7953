import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { BUILTIN_RESOURCES, Client } from '@svc/client';
import { Container, injectable } from 'inversify';
import { Reconciler } from '../decorators/reconciler.decorator';
import { Runnable, type RunContext } from '../decorators/runnable.decorator';
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

describe('one container, with or without Nest', () => {
  it('runs the reconcilers and runnables RuntimeModule names, made by the inversify container Nest also holds', async () => {
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
    @Runnable({ name: 'counting', reads: [BUILTIN_RESOURCES.configMaps] })
    class Counting implements Runnable {
      constructor(readonly journal: Journal) {}
      async run(signal: AbortSignal, { cache }: RunContext): Promise<void> {
        this.journal.entries.push(`saw ${cache.list(BUILTIN_RESOURCES.configMaps, { namespace: 'nest' }).length}`);
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        this.journal.entries.push('stopped');
      }
    }
    const container = new Container();
    container.bind(Journal).toSelf().inSingletonScope();
    // A Nest provider that needs what the framework holds gets it from Nest.
    @Injectable()
    class UsesManager {
      constructor(readonly manager: Manager) {}
    }
    @Module({
      imports: [RuntimeModule.forRoot({ clientConfig: env.clientConfig, logger: silent, container, reconcilers: [NestReconciler], runnables: [Counting] })],
      providers: [UsesManager],
    })
    class RootModule {}

    const app = await NestFactory.createApplicationContext(RootModule, { logger: false });
    let stopped = false;
    try {
      const manager = app.get(Manager);
      expect(app.get(UsesManager).manager).toBe(manager);
      expect(app.get(Container)).toBe(container);
      expect(manager.getControllers()).toHaveLength(1);
      // The instance the manager runs is the container's; the client it got is the manager's.
      expect(manager.getControllers()[0].reconciler).toBe(container.get(NestReconciler));
      expect(container.get(NestReconciler).client).toBe(manager.client);
      await env.client.configMaps.inNamespace('nest').create({ metadata: { name: 'from-nest' } });
      await eventually(() => expect(container.get(Journal).entries).toEqual(expect.arrayContaining(['saw 0', 'from-nest'])));
      await app.close();
      stopped = true;
      expect(container.get(Journal).entries).toContain('stopped');
    } finally {
      if (!stopped) await app.close();
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
