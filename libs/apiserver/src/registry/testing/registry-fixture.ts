import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinScheme, type KindDefinition, type Scheme } from '@svc/api';
import { EmbeddedStorage } from '@svc/storage';
import { AdmissionChain, namespaceLifecycle, type AdmissionPlugin } from '../../admission';
import { admissionReads } from '../admission-reads';
import { CacherPool } from '../../watchcache/cacher-pool';
import { ResourceRegistries } from '../registries';
import type { ResourceRegistry } from '../resource-registry';

export interface RegistryFixture {
  storage: EmbeddedStorage;
  scheme: Scheme;
  registries: ResourceRegistries;
  cachers: CacherPool;
  /** The registry of a built-in kind by resource name (`configmaps`, `deployments`). */
  registry(resource: string, group?: string, version?: string): ResourceRegistry;
  /** Creates namespaces through the registry, as the bootstrap hook does. */
  namespace(...names: string[]): Promise<void>;
  close(): Promise<void>;
}

export interface RegistryFixtureOptions {
  /** Serve reads and watches through watch caches (default true). */
  watchCache?: boolean;
  admission?: AdmissionPlugin[];
  compactionIntervalMs?: number;
  now?: () => Date;
}

/** Registries over a real embedded store in a temporary directory, with NamespaceLifecycle admission. */
export function registryFixture(options: RegistryFixtureOptions = {}): RegistryFixture {
  const dir = mkdtempSync(join(tmpdir(), 'svc-registry-'));
  const storage = EmbeddedStorage.open({ dataDir: dir, compactionIntervalMs: options.compactionIntervalMs ?? 0, tooLargeWaitMs: 200 });
  const scheme = builtinScheme();
  const cachers = new CacherPool(storage, {
    storePrefix: '/registry',
    watchCache: options.watchCache ?? true,
    cacherOptions: { waitMs: 1_000, bookmarkIntervalMs: 200, progressIntervalMs: 100 },
  });
  const holder: { registries?: ResourceRegistries } = {};
  const reads = admissionReads(() => holder.registries!);
  const admission = new AdmissionChain(options.admission ?? [namespaceLifecycle(reads.namespaces)]);
  const registries = new ResourceRegistries({
    storage,
    scheme,
    storePrefix: '/registry',
    cachers,
    admission,
    deleteCollectionWorkers: 2,
    now: options.now ?? (() => new Date()),
  });
  holder.registries = registries;
  const registry = (resource: string, group = '', version = group === '' ? 'v1' : 'v1'): ResourceRegistry => {
    const def: KindDefinition | undefined = scheme.byResource({ group, version, resource });
    if (def === undefined) throw new Error(`no kind for ${resource}`);
    return registries.forDefinition(def);
  };
  return {
    storage,
    scheme,
    registries,
    cachers,
    registry,
    async namespace(...names) {
      for (const name of names) await registry('namespaces').create('', { value: { metadata: { name } } });
    },
    async close() {
      await cachers.stop();
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
