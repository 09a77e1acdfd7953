import 'reflect-metadata';
import { Reconciler } from '../decorators/reconciler.decorator';
import type { Reconcile } from '../reconcile/reconcile';
import { eventually } from '../testing';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { Manager } from './manager';

const silent = { info: () => undefined, error: () => undefined };
let env: TestEnvironment;
beforeAll(async () => {
  env = await startTestEnvironment();
});
afterAll(async () => {
  await env?.stop();
});

describe('Manager start', () => {
  it('fails to start, and reports not ready meanwhile, when a cache cannot sync', async () => {
    @Reconciler({ for: { group: 'example.com', version: 'v1', resource: 'widgets', namespaced: true, kind: 'Widget' } })
    class Widgets implements Reconcile {
      reconcile(): void {}
    }
    const manager = new Manager({
      clientConfig: env.clientConfig,
      logger: silent,
      cacheSyncTimeoutMs: 3_000,
      http: { port: 0 },
      informers: { logger: { info: () => undefined, warn: () => undefined, error: () => undefined } },
    });
    manager.add(new Widgets());
    const starting = manager.start();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const ready = await fetch(`http://127.0.0.1:${manager.port}/readyz`);
    expect(ready.status).toBe(500);
    expect(await ready.text()).toContain('example.com/v1/widgets: not synced');
    await expect(starting).rejects.toThrow(/caches did not sync: example.com\/v1\/widgets/);
    expect(manager.getControllers()[0].running).toBe(false);
  });

  it('stays ready while a reconciler added at run time waits for its cache', async () => {
    const manager = new Manager({
      clientConfig: env.clientConfig,
      logger: silent,
      http: { port: 0 },
      informers: { logger: { info: () => undefined, warn: () => undefined, error: () => undefined } },
    });
    await manager.start();
    try {
      expect((await fetch(`http://127.0.0.1:${manager.port}/readyz`)).status).toBe(200);
      @Reconciler({ for: { group: 'example.com', version: 'v1', resource: 'gadgets', namespaced: true, kind: 'Gadget' } })
      class Gadgets implements Reconcile {
        reconcile(): void {}
      }
      manager.add(new Gadgets());
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(manager.informers.health().find((h) => h.key.includes('gadgets'))?.synced).toBe(false);
      expect((await fetch(`http://127.0.0.1:${manager.port}/readyz`)).status).toBe(200);
    } finally {
      await manager.stop();
    }
  });

  it('refuses classes without @Reconciler and reconcilers added to a stopped manager', async () => {
    const manager = new Manager({ clientConfig: env.clientConfig, logger: silent });
    class Plain implements Reconcile {
      reconcile(): void {}
    }
    expect(() => manager.add(new Plain())).toThrow(/no @Reconciler/);
    await manager.start();
    await manager.stop();
    @Reconciler({ for: { apiVersion: 'v1', kind: 'ConfigMap' } })
    class Late implements Reconcile {
      reconcile(): void {}
    }
    expect(() => manager.add(new Late())).toThrow(/the manager is stopped/);
  });

  it('adds a reconciler to a running manager, and removing it frees its cache', async () => {
    const manager = new Manager({ clientConfig: env.clientConfig, logger: silent });
    await manager.start();
    const seen: string[] = [];
    @Reconciler({ for: { apiVersion: 'v1', kind: 'ConfigMap' }, namespace: 'default' })
    class Late implements Reconcile {
      reconcile(request: { name: string }): void {
        seen.push(request.name);
      }
    }
    const controller = manager.add(new Late());
    await env.client.configMaps.create({ metadata: { name: 'late-one', namespace: 'default' } });
    await eventually(() => expect(seen).toContain('late-one'));
    expect(controller.running).toBe(true);
    const [informer] = controller.informers();

    expect(await manager.remove('Late')).toBe(true);
    expect(controller.running).toBe(false);
    expect(informer.isStopped).toBe(true);
    expect(manager.getControllers()).toHaveLength(0);
    expect(await manager.remove('Late')).toBe(false);
    await manager.stop();
  });
});

describe('Manager runnables', () => {
  it('runs a runnable while it leads, and stops it when the lease is released', async () => {
    const lease = `runnable-${Date.now()}`;
    const runs: string[] = [];
    const manager = new Manager({
      clientConfig: env.clientConfig,
      logger: silent,
      leaderElection: { resourceName: lease, leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 200 },
    });
    manager.addRunnable({
      name: 'loop',
      run: async (signal) => {
        runs.push('started');
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        runs.push('stopped');
      },
    });
    await manager.start();
    await eventually(() => expect(runs).toEqual(['started']), 10_000);
    expect(manager.isLeader()).toBe(true);
    const late: string[] = [];
    manager.addRunnable({ name: 'late', run: () => Promise.resolve(void late.push('ran')) });
    await eventually(() => expect(late).toEqual(['ran']), 5_000);
    await manager.stop();
    expect(runs).toEqual(['started', 'stopped']);
    const released = await env.client.leases.get(lease, { namespace: 'svc-system' });
    expect(released.spec?.holderIdentity ?? '').toBe('');
  });

  it('does not wait past the grace period for a runnable that ignores its signal, and logs a failing one', async () => {
    const errors: string[] = [];
    const manager = new Manager({ clientConfig: env.clientConfig, logger: { info: () => undefined, error: (m) => errors.push(m) }, gracefulShutdownMs: 200 });
    manager.addRunnable({ name: 'stubborn', run: () => new Promise<void>(() => undefined) });
    manager.addRunnable({ name: 'broken', run: () => Promise.reject(new Error('boom')) });
    await manager.start();
    await eventually(() => expect(errors).toEqual(['broken failed']), 5_000);
    const started = Date.now();
    await manager.stop();
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
