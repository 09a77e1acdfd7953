/** The storage's tour (libs/storage/README.md), run by test/docs-samples.e2e-spec.ts. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStorage } from '@svc/storage';

export async function sample(): Promise<string[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-docs-storage-'));
  try {
    // #region doc
    const storage = await createStorage({ backend: 'embedded', dataDir, compactionIntervalMs: 5 * 60_000 }); // --store-compaction-interval
    // or: createStorage({ backend: 'store3', servers: ['http://10.0.0.1:2379', 'http://10.0.0.2:2379', 'http://10.0.0.3:2379'] })
    // or: createStorage({ backend: 'mongodb', servers: ['mongodb://host/svc?replicaSet=rs0'] })
    // #endregion
    await storage.close();
    return ['opened'];
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
