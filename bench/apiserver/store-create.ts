import { createStorage, objectKey, type StoredObject } from '../../libs/storage/src/index';
import { processCpuMicros } from './child-processes';
import { closedLoop, type ClosedLoopOptions, type ClosedLoopResult } from './closed-loop';

/** The store's compaction interval when the API server's flag is left at its default (5m). */
const SERVER_DEFAULT_COMPACTION_MS = 5 * 60 * 1000;

/**
 * Creates through the embedded storage backend itself, opened in this process on its own directory,
 * at the same concurrency the API server's creates ran at: the ceiling over the server's create rate.
 * `template` is an object as the server stored it, so both write the same bytes per object.
 */
export async function storeCreateRate(
  dataDir: string,
  namespace: string,
  template: StoredObject & { metadata: { name?: string; uid?: string; resourceVersion?: string } },
  options: ClosedLoopOptions,
): Promise<ClosedLoopResult> {
  const storage = await createStorage({ backend: 'embedded', dataDir, compactionIntervalMs: SERVER_DEFAULT_COMPACTION_MS });
  try {
    const { resourceVersion: _ignored, ...metadata } = template.metadata;
    return await closedLoop({ ...options, cpuMicros: () => processCpuMicros(process.pid) }, (worker, sequence) => {
      const name = `s-${worker}-${sequence}`;
      const object = { ...template, metadata: { ...metadata, name, uid: uidFor(worker, sequence) } };
      return storage.create(objectKey({ prefix: '/registry', group: '', resource: 'configmaps', namespace, name }), object);
    });
  } finally {
    await storage.close();
  }
}

/** A UUID-shaped uid of the same length as a generated one, unique per worker and sequence. */
function uidFor(worker: number, sequence: number): string {
  const hex = (worker * 1_000_000_000 + sequence).toString(16).padStart(12, '0');
  return `00000000-0000-4000-8000-${hex.slice(-12)}`;
}
