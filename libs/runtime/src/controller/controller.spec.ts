import 'reflect-metadata';
import type { ConfigMap, Secret } from '@svc/api';
import { BUILTIN_RESOURCES, Client, isWithdrawn } from '@svc/client';
import { isNotFound } from '@svc/machinery';
import { listerWatcherFor, type ListWatchClient } from '@svc/informers';
import { Reconciler } from '../decorators/reconciler.decorator';
import { createManager } from '../manager/create-manager';
import { Manager } from '../manager/manager';
import { GenerationChanged } from '../reconcile/predicates';
import { metadataOnly } from '../reconcile/resource-ref';
import type { Reconcile, ReconcileContext } from '../reconcile/reconcile';
import type { Request, Result } from '../reconcile/request';
import { eventually } from '../testing';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { delayed } from '../testing/delayed-lister-watcher';

const silent = { info: () => undefined, error: () => undefined };
let env: TestEnvironment;
let ns = 0;
const managers: Manager[] = [];

beforeAll(async () => {
  env = await startTestEnvironment();
});
afterAll(async () => {
  await env?.stop();
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.stop()));
});

async function namespace(): Promise<string> {
  const name = `t${++ns}-${Date.now() % 100000}`;
  await env.client.namespaces.create({ metadata: { name } });
  return name;
}

async function run(reconcilers: Array<new (...args: never[]) => Reconcile>, extra: Partial<Parameters<typeof createManager>[0]> = {}): Promise<Manager> {
  const { manager } = createManager({ clientConfig: env.clientConfig, reconcilers: reconcilers as never, logger: silent, ...extra });
  managers.push(manager);
  await manager.start();
  return manager;
}

describe('Controller against a real API server', () => {
  it('tells a reconcile that its object started being deleted, and withdraws the writes it sends for it from then on', async () => {
    const space = await namespace();
    const outcomes: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    @Reconciler({ for: BUILTIN_RESOURCES.configMaps, namespace: space })
    class Maker implements Reconcile {
      constructor(readonly client: Client) {}
      async reconcile(request: Request, { deleting, withdrawOn }: ReconcileContext): Promise<void> {
        if (request.name !== 'owner' || outcomes.length > 0) return;
        outcomes.push(`deleting at start: ${deleting.aborted}`);
        release();
        await new Promise((resolve) => deleting.addEventListener('abort', resolve, { once: true }));
        const made = await withdrawOn(deleting, () => this.client.secrets.create({ metadata: { name: 'made', namespace: space } }, { namespace: space })).then(
          () => 'created',
          (error: unknown) => (isWithdrawn(error) ? 'withdrawn' : String(error)),
        );
        outcomes.push(`write after the deletion: ${made}`);
      }
    }
    await run([Maker]);
    await env.client.configMaps.inNamespace(space).create({ metadata: { name: 'owner', finalizers: ['example.com/hold'] } });
    await held;
    await env.client.configMaps.inNamespace(space).delete('owner');
    await eventually(() => expect(outcomes).toEqual(['deleting at start: false', 'write after the deletion: withdrawn']));
    expect((await env.client.secrets.list({ namespace: space })).items).toEqual([]);
    await env.client.configMaps.inNamespace(space).patch('owner', { metadata: { finalizers: null } } as never, 'merge');
  });

  it('reconciles create, update and delete of its kind and of owned objects', async () => {
    const space = await namespace();
    const seen: string[] = [];
    @Reconciler({ for: BUILTIN_RESOURCES.configMaps, owns: [BUILTIN_RESOURCES.secrets], namespace: space })
    class Watcher implements Reconcile {
      reconcile(request: Request): void {
        seen.push(`${request.namespace}/${request.name}`);
      }
    }
    await run([Watcher]);
    const cms = env.client.configMaps.inNamespace(space);
    const owner = await cms.create({ metadata: { name: 'owner' } });
    await eventually(() => expect(seen).toContain(`${space}/owner`));

    seen.length = 0;
    await cms.update({ ...owner, data: { a: '1' } });
    await eventually(() => expect(seen).toContain(`${space}/owner`));

    seen.length = 0;
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid!, controller: true };
    await env.client.secrets.inNamespace(space).create({ metadata: { name: 'owned', ownerReferences: [ref] } });
    await eventually(() => expect(seen).toContain(`${space}/owner`));

    seen.length = 0;
    await env.client.secrets.inNamespace(space).delete('owned');
    await eventually(() => expect(seen).toContain(`${space}/owner`));

    seen.length = 0;
    await cms.delete('owner');
    await eventually(() => expect(seen).toContain(`${space}/owner`));
  });

  it('maps watched objects to requests with mapTo, for cluster-scoped kinds too', async () => {
    const space = await namespace();
    const seen: string[] = [];
    @Reconciler({
      for: { apiVersion: 'v1', kind: 'Namespace' },
      watches: [{ resource: BUILTIN_RESOURCES.secrets, mapTo: (secret) => [{ name: secret.metadata!.namespace! }] }],
      predicates: [(event) => event.object.metadata?.name === space],
    })
    class PerNamespace implements Reconcile {
      reconcile(request: Request): void {
        seen.push(request.namespace === undefined ? request.name : `bad:${request.namespace}`);
      }
    }
    await run([PerNamespace]);
    await eventually(() => expect(seen).toContain(space));
    seen.length = 0;
    await env.client.secrets.inNamespace(space).create({ metadata: { name: 's' } });
    await eventually(() => expect(seen).toEqual(expect.arrayContaining([space])));
    expect(seen.filter((s) => s.startsWith('bad:'))).toEqual([]);
  });

  it('never reconciles one key twice at once, whatever the concurrency', async () => {
    const space = await namespace();
    const inFlight = new Map<string, number>();
    let overlap = 0;
    let maxParallel = 0;
    let running = 0;
    let calls = 0;
    @Reconciler({ for: BUILTIN_RESOURCES.configMaps, concurrency: 4, namespace: space })
    class Slow implements Reconcile {
      async reconcile(request: Request): Promise<void> {
        calls++;
        const n = (inFlight.get(request.name) ?? 0) + 1;
        inFlight.set(request.name, n);
        if (n > 1) overlap++;
        running++;
        maxParallel = Math.max(maxParallel, running);
        await new Promise((resolve) => setTimeout(resolve, 15));
        running--;
        inFlight.set(request.name, n - 1);
      }
    }
    await run([Slow]);
    const cms = env.client.configMaps.inNamespace(space);
    await Promise.all(['hot', 'b', 'c', 'd'].map((name) => cms.create({ metadata: { name } })));
    for (let i = 0; i < 30; i++) await cms.patch('hot', { data: { i: String(i) } });
    await eventually(() => expect(calls).toBeGreaterThanOrEqual(5));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(overlap).toBe(0);
    // Other keys did run beside each other.
    expect(maxParallel).toBeGreaterThan(1);
  });

  it('retries errors with growing backoff, counts them, and resets the backoff after a success', async () => {
    const space = await namespace();
    const times: number[] = [];
    let failuresLeft = 5;
    @Reconciler({ for: BUILTIN_RESOURCES.configMaps, namespace: space, name: 'flaky' })
    class Flaky implements Reconcile {
      reconcile(): void {
        times.push(Date.now());
        if (failuresLeft-- > 0) throw new Error('boom');
      }
    }
    // The retry number each failure logs is the key's requeue count, the backoff's exponent.
    const retries: number[] = [];
    const logger = {
      info: () => undefined,
      error: (message: string) => {
        const retry = /reconcile of .* failed \(retry (\d+)\)/.exec(message);
        if (retry) retries.push(Number(retry[1]));
      },
    };
    const manager = await run([Flaky], { logger });
    const cms = env.client.configMaps.inNamespace(space);
    await cms.create({ metadata: { name: 'x' } });
    await eventually(() => expect(times.length).toBe(6));
    const gaps = times.slice(1).map((t, i) => t - times[i]);
    // 5, 10, 20, 40, 80 ms from client-go's default limiter: each wait is at least its step (a busy
    // machine only lengthens them; a timer may fire a millisecond early by the wall clock).
    [5, 10, 20, 40, 80].forEach((least, i) => expect(gaps[i]).toBeGreaterThanOrEqual(least - 1));
    expect(retries).toEqual([1, 2, 3, 4, 5]);
    const errors = await manager.registry.getSingleMetric('controller_runtime_reconcile_errors_total')!.get();
    expect(errors.values.find((v) => v.labels.controller === 'flaky')?.value).toBe(5);

    // After the success, the next failure starts again from the shortest wait.
    times.length = 0;
    retries.length = 0;
    failuresLeft = 1;
    await cms.patch('x', { data: { again: '1' } });
    await eventually(() => expect(times.length).toBe(2));
    expect(retries).toEqual([1]);
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(4);
  });

  it('reconciles again after requeueAfter', async () => {
    const space = await namespace();
    const times: number[] = [];
    @Reconciler({ for: BUILTIN_RESOURCES.configMaps, namespace: space, predicates: [GenerationChanged] })
    class Later implements Reconcile {
      reconcile(): Result {
        times.push(Date.now());
        return times.length === 1 ? { requeueAfter: 300 } : {};
      }
    }
    await run([Later]);
    await env.client.configMaps.inNamespace(space).create({ metadata: { name: 'y' } });
    await eventually(() => expect(times.length).toBe(2));
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(290);
  });

  it('lets a reconciler read its own writes from the cache on the next reconcile', async () => {
    const space = await namespace();
    const observed: number[] = [];
    const manager = new Manager({ clientConfig: env.clientConfig, logger: silent, readYourWritesTimeoutMs: 5_000 });
    managers.push(manager);
    // The cache learns of every change 150 ms late, so a reconcile that did not wait would read
    // its own stale state.
    const informer = manager.informers.informerFor<ConfigMap>({ resource: 'v1/configmaps', namespace: space }, () =>
      delayed(listerWatcherFor(env.client.configMaps as unknown as ListWatchClient<ConfigMap>, { namespace: space }), 150),
    );
    @Reconciler({ for: BUILTIN_RESOURCES.configMaps, namespace: space })
    class Counter implements Reconcile {
      async reconcile(request: Request, context: ReconcileContext): Promise<Result> {
        const cached = informer.lister().namespace(space).get(request.name);
        if (!cached) return {};
        const count = Number(cached.data?.count ?? '0');
        observed.push(count);
        if (count >= 5) return {};
        await context.client.configMaps.update({ ...cached, data: { count: String(count + 1) } });
        return { requeueAfter: 1 };
      }
    }
    manager.add(new Counter());
    await manager.start();
    await env.client.configMaps.inNamespace(space).create({ metadata: { name: 'c' }, data: { count: '0' } });
    await eventually(() => expect(observed).toContain(5));
    // Each reconcile saw the write of the one before: 0, 1, 2, ... with no repeats (a repeat would be
    // a stale read, and its update would fail with a conflict). The events of its own writes may
    // wake it again once it is done, which is why only the run up to 5 is compared.
    expect(observed.slice(0, observed.indexOf(5) + 1)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('waits, before the next reconcile of a key, until the caches show the objects its last reconcile created or deleted', async () => {
    const space = await namespace();
    const manager = new Manager({ clientConfig: env.clientConfig, logger: silent, readYourWritesTimeoutMs: 5_000 });
    managers.push(manager);
    // Owned Secrets reach the cache 200 ms late: without expectations each wake-up in that window
    // would create another copy.
    const secrets = manager.informers.informerFor<Secret>({ resource: 'v1/secrets', namespace: space }, () =>
      delayed(listerWatcherFor(env.client.secrets as unknown as ListWatchClient<Secret>, { namespace: space }), 200),
    );
    let maxSeen = 0;
    @Reconciler({ for: BUILTIN_RESOURCES.configMaps, owns: [BUILTIN_RESOURCES.secrets], namespace: space })
    class Copies implements Reconcile {
      async reconcile(request: Request, context: ReconcileContext): Promise<Result> {
        const owner = manager.informerFor(BUILTIN_RESOURCES.configMaps, space).lister().namespace(space).get(request.name);
        const mine = secrets
          .lister()
          .namespace(space)
          .list()
          .filter((x) => x.metadata?.ownerReferences?.[0]?.name === request.name);
        const want = Number(owner?.data?.copies ?? '0');
        maxSeen = Math.max(maxSeen, (await env.client.secrets.list({ namespace: space })).items.length);
        for (let i = mine.length; i < want; i++) {
          await context.client.secrets.inNamespace(space).create({
            metadata: {
              generateName: `${request.name}-`,
              ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: request.name, uid: owner!.metadata!.uid!, controller: true }],
            },
          });
        }
        for (const extra of mine.slice(want)) await context.client.secrets.delete(extra.metadata!.name!, { namespace: space });
        return {};
      }
    }
    manager.add(new Copies());
    await manager.start();
    const configMaps = env.client.configMaps.inNamespace(space);
    await configMaps.create({ metadata: { name: 'o' }, data: { copies: '3' } });
    // Wake the reconciler repeatedly while its creates are still on their way to the cache.
    for (let i = 0; i < 5; i++) await configMaps.patch('o', { metadata: { annotations: { poke: String(i) } } }, 'merge');
    await eventually(async () => expect((await env.client.secrets.list({ namespace: space })).items).toHaveLength(3));
    await configMaps.patch('o', { data: { copies: '1' } }, 'merge');
    for (let i = 0; i < 5; i++) await configMaps.patch('o', { metadata: { annotations: { poke: `d${i}` } } }, 'merge');
    await eventually(async () => expect((await env.client.secrets.list({ namespace: space })).items).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await env.client.secrets.list({ namespace: space })).items).toHaveLength(1);
    expect(maxSeen).toBeLessThanOrEqual(3);
  });

  it('keeps a key from creating or deleting owned objects again until its owned informer showed them, whatever the read-your-writes wait', async () => {
    const space = await namespace();
    // The read-your-writes wait gives up long before the owned cache catches up: only the
    // expectations stand between a wake-up and a duplicate.
    const manager = new Manager({ clientConfig: env.clientConfig, logger: silent, readYourWritesTimeoutMs: 10 });
    managers.push(manager);
    const secrets = manager.informers.informerFor<Secret>({ resource: 'v1/secrets', namespace: space }, () =>
      delayed(listerWatcherFor(env.client.secrets as unknown as ListWatchClient<Secret>, { namespace: space }), 400),
    );
    let maxSeen = 0;
    let waited = 0;
    @Reconciler({ for: BUILTIN_RESOURCES.configMaps, owns: [BUILTIN_RESOURCES.secrets], namespace: space })
    class Copies implements Reconcile {
      async reconcile(request: Request, { client, expectations }: ReconcileContext): Promise<Result> {
        maxSeen = Math.max(maxSeen, (await env.client.secrets.list({ namespace: space })).items.length);
        if (!expectations.satisfied()) {
          waited++;
          return {};
        }
        const owner = manager.informerFor(BUILTIN_RESOURCES.configMaps, space).lister().namespace(space).get(request.name);
        const mine = secrets
          .lister()
          .namespace(space)
          .list()
          .filter((x) => x.metadata?.ownerReferences?.[0]?.name === request.name);
        const want = Number(owner?.data?.copies ?? '0');
        if (mine.length < want) {
          expectations.expectCreations(want - mine.length);
          for (let i = mine.length; i < want; i++) {
            await client.secrets
              .inNamespace(space)
              .create({
                metadata: {
                  generateName: `${request.name}-`,
                  ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: request.name, uid: owner!.metadata!.uid!, controller: true }],
                },
              })
              .catch(() => expectations.creationObserved());
          }
        } else if (mine.length > want) {
          const extra = mine.slice(want);
          expectations.expectDeletions(extra);
          for (const x of extra) await client.secrets.delete(x.metadata!.name!, { namespace: space }).catch(() => expectations.deletionObserved(x));
        }
        return {};
      }
    }
    manager.add(new Copies());
    await manager.start();
    const configMaps = env.client.configMaps.inNamespace(space);
    const secretCount = async () => (await env.client.secrets.list({ namespace: space })).items.length;
    await configMaps.create({ metadata: { name: 'o' }, data: { copies: '3' } });
    for (let i = 0; i < 5; i++) await configMaps.patch('o', { metadata: { annotations: { poke: String(i) } } }, 'merge');
    await eventually(async () => expect(await secretCount()).toBe(3));
    await configMaps.patch('o', { data: { copies: '1' } }, 'merge');
    for (let i = 0; i < 5; i++) await configMaps.patch('o', { metadata: { annotations: { poke: `d${i}` } } }, 'merge');
    // The owned informer's events lowered the expectations (and woke the owner): it converges.
    await eventually(async () => expect(await secretCount()).toBe(1));
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await secretCount()).toBe(1);
    expect(maxSeen).toBeLessThanOrEqual(3);
    expect(waited).toBeGreaterThan(0);
    // The late cache shows the deletions in the end, which lowers the last of them.
    await eventually(() => expect(manager.getControllers()[0].expectations.satisfied(`${space}/o`)).toBe(true));
  });

  it('caches a metadataOnly resource without its bodies, in an informer apart from the full one', async () => {
    const space = await namespace();
    const seen: Array<Record<string, unknown>> = [];
    @Reconciler({ for: metadataOnly(BUILTIN_RESOURCES.configMaps), namespace: space })
    class Names implements Reconcile {
      reconcile(request: Request): void {
        const cached = manager.informerFor(metadataOnly(BUILTIN_RESOURCES.configMaps), space).lister().namespace(space).get(request.name);
        if (cached) seen.push(cached as Record<string, unknown>);
      }
    }
    const manager = await run([Names]);
    await env.client.configMaps.inNamespace(space).create({ metadata: { name: 'm', labels: { a: 'b' } }, data: { secret: 'body' } });
    await eventually(() => expect(seen).toHaveLength(1));
    expect(seen[0]).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name: 'm', namespace: space, labels: { a: 'b' } } });
    expect(seen[0]).not.toHaveProperty('data');
    expect(manager.informers.keys()).toEqual([`v1/configmaps#metadata namespace=${space}`]);
  });

  it('remembers the resourceVersion of each write made through the manager client', async () => {
    const space = await namespace();
    @Reconciler({ for: BUILTIN_RESOURCES.configMaps, namespace: space })
    class Idle implements Reconcile {
      reconcile(): void {}
    }
    const manager = await run([Idle]);
    const created = await manager.client.configMaps.inNamespace(space).create({ metadata: { name: 'w' } });
    expect(manager.tracker.get('v1/configmaps', `${space}/w`)).toBe(created.metadata?.resourceVersion);
    const patched = await manager.client.configMaps.patch('w', { data: { a: '1' } }, 'merge', { namespace: space });
    expect(manager.tracker.get('v1/configmaps', `${space}/w`)).toBe(patched.metadata?.resourceVersion);
    // The informer reaches it, so the next reconcile of the key does not wait.
    expect(await manager.informerFor(BUILTIN_RESOURCES.configMaps, space).waitForResourceVersion(`${space}/w`, patched.metadata!.resourceVersion!, 5_000)).toBe(
      true,
    );
  });

  it('serves healthz, readyz and metrics', async () => {
    const space = await namespace();
    @Reconciler({ for: BUILTIN_RESOURCES.configMaps, namespace: space, name: 'probed' })
    class Probed implements Reconcile {
      reconcile(): void {}
    }
    for (const name of ['a', 'b', 'c']) await env.client.configMaps.inNamespace(space).create({ metadata: { name }, data: { key: 'x'.repeat(1000) } });
    const manager = await run([Probed], { http: { port: 0 } });
    const base = `http://127.0.0.1:${manager.port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz?verbose`);
    expect(ready.status).toBe(200);
    expect(await ready.text()).toContain('[+]informers ok');
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toContain('controller_runtime_reconcile_total{controller="probed",result="success"}');
    expect(metrics).toContain('workqueue_adds_total{name="probed"}');
    // Each informer's objects, their approximate bytes (three objects of over 1,000 bytes each) and its lists.
    const informer = (name: string) => Number(new RegExp(`^${name}\\{resource="[^"]*configmaps[^"]*"\\} (\\d+)$`, 'm').exec(metrics)?.[1]);
    expect(informer('svc_informer_cached_objects')).toBe(3);
    expect(informer('svc_informer_cached_approximate_bytes')).toBeGreaterThan(3_000);
    expect(informer('svc_informer_cached_approximate_bytes')).toBeLessThan(5_000);
    expect(informer('svc_informer_lists')).toBe(1);
  });

  it('does not lose a missing object: reconciles a key whose object is gone', async () => {
    const space = await namespace();
    const outcomes: string[] = [];
    @Reconciler({ for: BUILTIN_RESOURCES.configMaps, namespace: space })
    class Gone implements Reconcile {
      async reconcile(request: Request, context: ReconcileContext): Promise<void> {
        try {
          await context.client.configMaps.inNamespace(space).get(request.name);
          outcomes.push('present');
        } catch (error) {
          if (!isNotFound(error)) throw error;
          outcomes.push('gone');
        }
      }
    }
    await run([Gone]);
    const cms = env.client.configMaps.inNamespace(space);
    await cms.create({ metadata: { name: 'z' } });
    await eventually(() => expect(outcomes).toContain('present'));
    await cms.delete('z');
    await eventually(() => expect(outcomes).toContain('gone'));
  });
});
