import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeStorageContract } from '../testing/contract-suite';
import { EmbeddedStorage } from './embedded-storage';

const directories: string[] = [];

describeStorageContract('embedded storage backend (SQLite) honours the storage contract', {
  async open(options) {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-storage-'));
    directories.push(dataDir);
    return EmbeddedStorage.open({ dataDir, compactionIntervalMs: 0, ...options });
  },
  async dispose() {
    for (const dir of directories.splice(0)) rmSync(dir, { recursive: true, force: true });
  },
});
