import 'reflect-metadata';
import type { ConfigMap, Secret } from '@svc/api';
import { BUILTIN_RESOURCES, type PartialObjectMetadata } from '@svc/client';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { Reconciler } from '../decorators/reconciler.decorator';
import { Manager } from '../manager/manager';
import { eventually } from '../testing';
import { cacheIndex } from './cache-declarations';
import { CacheReadError } from './cache-reader';
import type { Reconcile, ReconcileContext } from './reconcile';
import type { Request } from './request';
import { metadataOnly } from './resource-ref';

const silent = { info: () => undefined, error: () => undefined };
let env: TestEnvironment;
let manager: Manager | undefined;
let ns = 0;

beforeAll(async () => {
  env = await startTestEnvironment();
});
afterAll(async () => {
  await env?.stop();
});
afterEach(async () => {
  await manager?.stop();
  manager = undefined;
});

async function namespace(): Promise<string> {
  const name = `cache${++ns}-${Date.now() % 100000}`;
  await env.client.namespaces.create({ metadata: { name } });
  return name;
}

describe('reads from the cache through the reconcile context', () => {
  it('gets and lists the resources the controller watches, typed, from the informers and not the server', async () => {
    const space = await namespace();
    const reads: Array<{ owner: ConfigMap | undefined; secrets: Secret[]; frozen: boolean }> = [];
    manager = new Manager({ clientConfig: env.clientConfig, logger: silent });
    const m = manager;
    @Reconciler({ for: BUILTIN_RESOURCES.configMaps, owns: [BUILTIN_RESOURCES.secrets], namespace: space })
    class Reader implements Reconcile {
      reconcile(request: Request, { cache }: ReconcileContext): void {
        const owner = cache.get(BUILTIN_RESOURCES.configMaps, request);
        // No namespace given: the controller's own.
        const secrets = cache.list(BUILTIN_RESOURCES.secrets, { labelSelector: { owner: request.name } });
        reads.push({
          owner,
          secrets,
          frozen:
            owner !== undefined &&
            Object.isFrozen(owner) &&
            owner === m.informerFor(BUILTIN_RESOURCES.configMaps, space).lister().namespace(space).get(request.name),
        });
      }
    }
    manager.add(new Reader());
    await manager.start();
    await env.client.secrets.inNamespace(space).create({ metadata: { name: 's1', labels: { owner: 'o' } } });
    await env.client.secrets.inNamespace(space).create({ metadata: { name: 's2', labels: { owner: 'other' } } });
    await env.client.configMaps.inNamespace(space).create({ metadata: { name: 'o' }, data: { a: '1' } });
    await eventually(() => expect(reads.some((r) => r.owner?.data?.a === '1' && r.secrets.length === 1)).toBe(true));
    const read = reads.find((r) => r.owner?.data?.a === '1' && r.secrets.length === 1)!;
    expect(read.secrets.map((s) => s.metadata?.name)).toEqual(['s1']);
    // The very object the informer holds.
    expect(read.frozen).toBe(true);

    await env.client.configMaps.inNamespace(space).delete('o');
    await eventually(() => expect(reads.at(-1)?.owner).toBeUndefined());
  });

  it('reads what the reconciler declares it reads, by the indexes it declares, in reconcile and in mapTo alike', async () => {
    const space = await namespace();
    const seen: string[] = [];
    const mapped: string[] = [];
    manager = new Manager({ clientConfig: env.clientConfig, logger: silent });
    const byData = cacheIndex(BUILTIN_RESOURCES.secrets, 'by-target', (secret) => (secret.metadata?.labels?.target ? [secret.metadata.labels.target] : []));
    @Reconciler({
      for: BUILTIN_RESOURCES.configMaps,
      namespace: space,
      reads: [BUILTIN_RESOURCES.serviceAccounts],
      indexes: [byData],
      // A Secret wakes the ConfigMap it targets, found through the cache the mapping is handed.
      watches: [
        {
          resource: BUILTIN_RESOURCES.secrets,
          mapTo: (secret, _r: unknown, cache) => {
            const target = secret.metadata?.labels?.target ?? '';
            mapped.push(`${secret.metadata?.name}:${cache.get(BUILTIN_RESOURCES.configMaps, { namespace: space, name: target }) ? 'found' : 'missing'}`);
            return [{ namespace: space, name: target }];
          },
        },
      ],
    })
    class Reader implements Reconcile {
      reconcile(request: Request, { cache }: ReconcileContext): void {
        const secrets = cache.byIndex(BUILTIN_RESOURCES.secrets, 'by-target', request.name).map((s) => s.metadata?.name);
        const accounts = cache.list(BUILTIN_RESOURCES.serviceAccounts).map((a) => a.metadata?.name);
        seen.push(`${request.name}: ${secrets.join(',')} / ${accounts.join(',')}`);
      }
    }
    manager.add(new Reader());
    await manager.start();
    await env.client.serviceAccounts.inNamespace(space).create({ metadata: { name: 'sa' } });
    await env.client.configMaps.inNamespace(space).create({ metadata: { name: 'cm' } });
    await eventually(() => expect(seen).toContain('cm:  / sa'));
    await env.client.secrets.inNamespace(space).create({ metadata: { name: 's1', labels: { target: 'cm' } } });
    await eventually(() => expect(seen).toContain('cm: s1 / sa'));
    expect(mapped).toContain('s1:found');
  });

  it('refuses, with an error that is retried, a read of a resource no informer holds', async () => {
    const space = await namespace();
    const failures: unknown[] = [];
    manager = new Manager({ clientConfig: env.clientConfig, logger: { info: () => undefined, error: (_m, e) => failures.push(e) } });
    @Reconciler({ for: BUILTIN_RESOURCES.configMaps, namespace: space, name: 'reads-pods' })
    class ReadsPods implements Reconcile {
      reconcile(request: Request, { cache }: ReconcileContext): void {
        cache.get(BUILTIN_RESOURCES.pods, request);
      }
    }
    manager.add(new ReadsPods());
    await manager.start();
    await env.client.configMaps.inNamespace(space).create({ metadata: { name: 'p' } });
    await eventually(() => expect(failures.length).toBeGreaterThanOrEqual(2));
    expect(failures[0]).toBeInstanceOf(CacheReadError);
    expect((failures[0] as Error).message).toBe(`no cache holds v1/pods of namespace ${space}: name it in for, owns, watches or reads`);
  });

  it('reads another namespace only through an informer of all namespaces, and cluster-scoped and metadata-only resources', async () => {
    const space = await namespace();
    const other = await namespace();
    await env.client.configMaps.inNamespace(other).create({ metadata: { name: 'elsewhere' }, data: { secret: 'body' } });
    manager = new Manager({ clientConfig: env.clientConfig, logger: silent });
    const results: string[] = [];
    @Reconciler({ for: BUILTIN_RESOURCES.configMaps, namespace: space, name: 'scoped' })
    class Scoped implements Reconcile {
      reconcile(request: Request, { cache }: ReconcileContext): void {
        if (request.name !== 'go') return;
        try {
          cache.get(BUILTIN_RESOURCES.configMaps, { namespace: other, name: 'elsewhere' });
          results.push('read another namespace');
        } catch (error) {
          results.push(error instanceof CacheReadError ? 'refused' : String(error));
        }
        results.push(`namespace ${cache.get(BUILTIN_RESOURCES.namespaces, { name: space })?.metadata?.name}`);
        const meta: PartialObjectMetadata | undefined = cache.get(metadataOnly(BUILTIN_RESOURCES.configMaps), { namespace: other, name: 'elsewhere' });
        results.push(`metadata ${meta?.metadata?.name} ${'data' in (meta ?? {})}`);
      }
    }
    manager.add(new Scoped());
    // Held by the manager for all namespaces before start, as a reconciler's constructor would ask.
    manager.informerFor(BUILTIN_RESOURCES.namespaces);
    manager.informerFor(metadataOnly(BUILTIN_RESOURCES.configMaps));
    await manager.start();
    await env.client.configMaps.inNamespace(space).create({ metadata: { name: 'go' } });
    await eventually(() => expect(results).toEqual(['refused', `namespace ${space}`, 'metadata elsewhere false']));

    // The manager's own reader is scoped to no namespace: it reads what its informers hold, and
    // refuses what none holds (all ConfigMaps, or those of a namespace no full informer watches).
    expect(manager.cache.get(metadataOnly(BUILTIN_RESOURCES.configMaps), { namespace: other, name: 'elsewhere' })?.metadata?.name).toBe('elsewhere');
    expect(manager.cache.list(BUILTIN_RESOURCES.configMaps, { namespace: space }).map((cm) => cm.metadata?.name)).toEqual(['go']);
    expect(() => manager!.cache.list(BUILTIN_RESOURCES.configMaps)).toThrow(CacheReadError);
    expect(() => manager!.cache.list(BUILTIN_RESOURCES.configMaps, { namespace: other })).toThrow(CacheReadError);
  });
});
