import type { KindDefinition, Scheme } from '@svc/api';
import type { Storage } from '@svc/storage';
import type { AdmissionChain, ServiceResolver } from '../admission';
import type { CacherPool } from '../watchcache/cacher-pool';
import type { WriteHooks } from './generic/write-hooks';

/** What every kind's store and verbs share. */
export interface RegistryContext {
  storage: Storage;
  scheme: Scheme;
  /** `--store-prefix`. */
  storePrefix: string;
  cachers: CacherPool;
  admission: AdmissionChain;
  /** `--delete-collection-workers`: deletes run this many at a time. */
  deleteCollectionWorkers: number;
  /** Reads without a resourceVersion are served from the watch cache once it has caught up (ConsistentListFromCache). */
  consistentReadsFromCache?: boolean;
  /** The clock of timestamps (creation, deletion, managedFields). */
  now: () => Date;
  /** The request body limit, which also bounds what a JSON patch's copies may add (3 MiB when absent). */
  maxRequestBodyBytes?: number;
  /** The write hooks of a kind, by its registered definition; none for most kinds. */
  writeHooks?: (definition: KindDefinition) => WriteHooks | undefined;
  /** Where webhooks named by a service reference are reached (CRD conversion webhooks). */
  resolveService?: ServiceResolver;
  /** How long a CRD conversion webhook may take; Kubernetes' 30 s when absent. */
  conversionTimeoutMs?: number;
}
