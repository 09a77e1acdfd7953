import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredObject } from '../storage';
import { EMBEDDED_DATABASE_FILE, EmbeddedStorage } from './embedded-storage';

describe('embedded store schema migration', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  test('a version 1 store (no time to live) opens, keeps its objects and takes keys with a TTL', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-storage-migration-'));
    dirs.push(dataDir);
    // The version 1 layout, written as an earlier build left it.
    const db = new Database(join(dataDir, EMBEDDED_DATABASE_FILE));
    db.exec(`
      CREATE TABLE log (revision INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL, created INTEGER NOT NULL,
        deleted INTEGER NOT NULL, create_revision INTEGER NOT NULL, prev_revision INTEGER NOT NULL, value TEXT NOT NULL);
      CREATE INDEX log_key_revision ON log (key, revision);
      CREATE TABLE kv (key TEXT PRIMARY KEY, revision INTEGER NOT NULL) WITHOUT ROWID;
      CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
      INSERT INTO meta (name, value) VALUES ('schema_version', 1), ('compact_revision', 0);
      INSERT INTO sqlite_sequence (name, seq) VALUES ('log', 1);
      INSERT INTO log (revision, key, created, deleted, create_revision, prev_revision, value)
        VALUES (2, '/registry/configmaps/default/old', 1, 0, 2, 0, '{"kind":"ConfigMap","metadata":{"name":"old"}}');
      INSERT INTO kv (key, revision) VALUES ('/registry/configmaps/default/old', 2);
      UPDATE sqlite_sequence SET seq = 2 WHERE name = 'log';
    `);
    db.close();

    const store = EmbeddedStorage.open({ dataDir, compactionIntervalMs: 0 });
    try {
      const old = await store.get<{ metadata: { name: string; resourceVersion: string } }>('/registry/configmaps/default/old');
      expect(old.metadata).toEqual({ name: 'old', resourceVersion: '2' });
      const created: StoredObject = await store.create('/registry/configmaps/default/new', { metadata: { uid: 'new' } }, { ttlSeconds: 60 });
      expect(created.metadata?.resourceVersion).toBe('3');
    } finally {
      await store.close();
    }
    const reopened = new Database(join(dataDir, EMBEDDED_DATABASE_FILE), { readonly: true });
    expect((reopened.prepare(`SELECT value FROM meta WHERE name = 'schema_version'`).get() as { value: number }).value).toBe(2);
    expect((reopened.prepare(`SELECT expires FROM kv WHERE key = '/registry/configmaps/default/new'`).get() as { expires: number }).expires).toBeGreaterThan(
      Date.now(),
    );
    reopened.close();
  });
});
