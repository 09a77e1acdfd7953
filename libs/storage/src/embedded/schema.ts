/**
 * The embedded store's SQLite schema, in the shape of kine: `log` holds every change keyed by revision
 * (the revision is the AUTOINCREMENT row id, so it is never reused, even after compaction removed the
 * newest row), `kv` points each live key at its newest log row so that the current state is an index
 * range scan, and `meta` holds the compacted revision so Expired stays exact across restarts.
 *
 * A DELETE row (deleted = 1) carries the object's last state, which is what a DELETED event shows.
 * `prev_revision` links a row to the key's previous live row (0 for a create); compaction follows these
 * links to drop superseded rows without scanning per key.
 */
export const SCHEMA_VERSION = 2;

export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS log (
  revision INTEGER PRIMARY KEY AUTOINCREMENT,
  key TEXT NOT NULL,
  created INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  value TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS log_key_revision ON log (key, revision);
CREATE TABLE IF NOT EXISTS kv (
  key TEXT PRIMARY KEY,
  revision INTEGER NOT NULL,
  expires INTEGER
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT OR IGNORE INTO meta (name, value) VALUES ('schema_version', ${SCHEMA_VERSION}), ('compact_revision', 0);
INSERT INTO sqlite_sequence (name, seq) SELECT 'log', 1
  WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'log');
`;

/**
 * Steps from each older schema version to the next, run in one transaction at open. Version 2: keys
 * with a time to live (`kv.expires`, milliseconds since the epoch; NULL for none).
 */
export const MIGRATIONS: Readonly<Record<number, string>> = {
  1: `ALTER TABLE kv ADD COLUMN expires INTEGER;`,
};

/** Indexes on columns that older versions lack: created once the migrations have run. */
export const INDEX_SQL = `CREATE INDEX IF NOT EXISTS kv_expires ON kv (expires) WHERE expires IS NOT NULL;`;

export const SQL = {
  revision: `SELECT seq FROM sqlite_sequence WHERE name = 'log'`,
  meta: `SELECT value FROM meta WHERE name = ?`,
  setCompacted: `UPDATE meta SET value = ? WHERE name = 'compact_revision'`,
  current: `SELECT l.revision AS revision, l.create_revision AS createRevision, l.value AS value
    FROM kv JOIN log l ON l.revision = kv.revision WHERE kv.key = ?`,
  insertLog: `INSERT INTO log (revision, key, created, deleted, create_revision, prev_revision, value)
    VALUES (?, ?, ?, ?, ?, ?, ?)`,
  upsertKv: `INSERT INTO kv (key, revision, expires) VALUES (?, ?, ?)
    ON CONFLICT (key) DO UPDATE SET revision = excluded.revision, expires = excluded.expires`,
  expired: `SELECT key, revision FROM kv WHERE expires IS NOT NULL AND expires <= ? ORDER BY expires LIMIT ?`,
  setSchemaVersion: `UPDATE meta SET value = ? WHERE name = 'schema_version'`,
  deleteKv: `DELETE FROM kv WHERE key = ?`,
  listCurrent: `SELECT kv.key AS key, l.revision AS revision, l.value AS value
    FROM kv JOIN log l ON l.revision = kv.revision
    WHERE kv.key >= ? AND kv.key < ? ORDER BY kv.key LIMIT ?`,
  countCurrent: `SELECT COUNT(*) AS n FROM kv WHERE key >= ? AND key < ?`,
  // The newest row of each key at or below the revision, unless that row is a deletion.
  listAt: `SELECT l.key AS key, l.revision AS revision, l.value AS value
    FROM log l JOIN (
      SELECT key, MAX(revision) AS revision FROM log
      WHERE key >= ? AND key < ? AND revision <= ? GROUP BY key
    ) newest ON l.revision = newest.revision
    WHERE l.deleted = 0 ORDER BY l.key LIMIT ?`,
  history: `SELECT l.revision AS revision, l.key AS key, l.created AS created, l.deleted AS deleted,
      l.prev_revision AS prevRevision, l.value AS value, p.value AS prevValue
    FROM log l LEFT JOIN log p ON p.revision = l.prev_revision AND l.deleted = 0
    WHERE l.revision > ? AND l.key >= ? AND l.key < ? ORDER BY l.revision LIMIT ?`,
  // Compaction of (from, to]: a row whose successor is at or below `to` is superseded, and so is a
  // deletion row at or below `to`. Rows above `to` and each key's newest row are never touched.
  compactSuperseded: `DELETE FROM log WHERE revision IN (
      SELECT prev_revision FROM log WHERE revision > ? AND revision <= ? AND prev_revision > 0)`,
  compactDeletions: `DELETE FROM log WHERE revision > ? AND revision <= ? AND deleted = 1`,
} as const;
