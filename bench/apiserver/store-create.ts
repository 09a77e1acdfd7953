import { createStorage, objectStorageKey, type Storage, type StoredObject } from '@svc/storage';
import { processCpuMicros } from './child-processes';
import { closedLoop, type Side } from './closed-loop';

/** The store's compaction interval when the API server's flag is left at its default (5m). */
const SERVER_DEFAULT_COMPACTION_MS = 5 * 60 * 1000;

export interface StoreCreates {
  side: Side;
  close(): Promise<void>;
}

export type StoredTemplate = StoredObject & { metadata: { name?: string; uid?: string; resourceVersion?: string } };

/**
 * Creates through the embedded storage backend itself, opened in this process on its own directory,
 * at the same concurrency as the API server's creates: the ceiling over the server's create rate.
 * `template` is an object as the server stored it, so both write the same bytes per object; names
 * (`s-<window>-<worker>-<sequence>`) are as long as the server's (`c-...`).
 */
export async function openStoreCreates(dataDir: string, namespace: string, template: StoredTemplate, concurrency: number): Promise<StoreCreates> {
  const storage: Storage = await createStorage({ backend: 'embedded', dataDir, compactionIntervalMs: SERVER_DEFAULT_COMPACTION_MS });
  const { resourceVersion: _ignored, ...metadata } = template.metadata;
  let windows = 0;
  const side: Side = (warmupMs, durationMs) => {
    const window = windows++;
    return closedLoop({ concurrency, warmupMs, durationMs, cpuMicros: () => processCpuMicros(process.pid) }, (worker, sequence) => {
      const name = `s-${window}-${worker}-${sequence}`;
      const object = { ...template, metadata: { ...metadata, name, uid: uidFor(window, worker, sequence) } };
      return storage.create(objectStorageKey({ prefix: '/registry', group: '', resource: 'configmaps', namespace, name }), object);
    });
  };
  return { side, close: () => storage.close() };
}

/** A UUID-shaped uid of the same length as a generated one, unique per window, worker and sequence. */
function uidFor(window: number, worker: number, sequence: number): string {
  const hex = ((window * 1_000 + worker) * 1_000_000_000 + sequence).toString(16).padStart(12, '0');
  return `00000000-0000-4000-8000-${hex.slice(-12)}`;
}
