import Database from 'better-sqlite3';
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { Preconditions } from '@svc/machinery';
import { decodeContinue, encodeContinue } from '../continue-token';
import { checkPreconditions, guaranteedUpdate, validatedDelete } from '../guaranteed-update';
import { keyAfter, prefixRange } from '../keys';
import { DEFAULT_TOO_LARGE_WAIT_MS, RevisionWaiter } from '../revision-waiter';
import type {
  ChangeEvent,
  ChangeType,
  CreateOptions,
  GetOptions,
  GuaranteedUpdateOptions,
  ListOptions,
  ListResult,
  Storage,
  StorageDeleteOptions,
  StorageStats,
  StorageWatchOptions,
  StoredObject,
  TryUpdate,
  UpdateOptions,
  Watcher,
} from '../storage';
import { StorageError } from '../storage-error';
import { decodeObject, encodeObjectForWrite, uidOf } from '../stored-value';
import { DEFAULT_WATCH_BUFFER_LIMIT, WatchChannel } from '../watch-channel';
import { INDEX_SQL, MIGRATIONS, SCHEMA_SQL, SCHEMA_VERSION, SQL } from './schema';

export const EMBEDDED_DATABASE_FILE = 'store.sqlite';

/** What one compaction batch may hold the event loop for; batches shrink or grow to keep to it. */
const COMPACTION_BATCH_BUDGET_MS = 10;
/** Revisions in the first batch of a compaction, before its time is known. */
const COMPACTION_FIRST_BATCH = 50;

export interface EmbeddedStorageOptions {
  /** Directory of the store's files (`--data-dir`); created if missing. */
  dataDir: string;
  /** `--store-compaction-interval` in milliseconds; 0 keeps all history. */
  compactionIntervalMs: number;
  tooLargeWaitMs?: number;
  watchBufferLimit?: number;
  /** Revisions compacted per transaction at most (fewer when they are large: each batch keeps to about 10 ms). */
  compactionBatchSize?: number;
}

interface CurrentRow {
  revision: number;
  createRevision: number;
  value: string;
}

interface KeyedRow {
  key: string;
  revision: number;
  value: string;
}

interface HistoryRow {
  revision: number;
  key: string;
  created: number;
  deleted: number;
  prevRevision: number;
  value: string;
  prevValue: string | null;
}

const HISTORY_PAGE = 500;
/** How often keys with a time to live are checked, and how many expire per check at most. */
const EXPIRY_SWEEP_MS = 1_000;
const EXPIRY_BATCH = 500;
const NO_LIMIT = -1;

/**
 * The default backend: SQLite through better-sqlite3, in one file under `--data-dir`, no server.
 *
 * Durability: WAL with `synchronous=FULL`, and a write's promise resolves only once the transaction
 * holding it has committed, so it is on disk and survives `kill -9` (and power loss). Group commit:
 * the writes that arrive in one turn of the event loop are committed together in one transaction, at
 * the end of that turn (one fsync for all of them instead of one each). Until then they exist only in
 * memory, as a pending overlay that later writes of the same batch check their preconditions
 * against; readers never see them (a get of a key with a pending write waits for the commit), and
 * watchers hear of them after the commit. One process only: the database is opened in
 * `locking_mode=EXCLUSIVE` and written at once, which takes an OS file lock held until the connection
 * closes; a second process fails with SQLITE_BUSY, reported as a clear error. The lock dies with the
 * process, so a `kill -9` never leaves a stale lock behind.
 *
 * Ordering: better-sqlite3 is synchronous and this process is the only writer, so each batch commits
 * and then feeds every live watcher, in revision order, before any other JavaScript runs; a watcher switching from history
 * to live does so in the same synchronous step as its last history read. Revision order is therefore
 * the order watchers see, with nothing missed or repeated.
 */
export class EmbeddedStorage implements Storage {
  readonly backend = 'embedded' as const;

  private readonly db: Database.Database;
  private readonly statements: ReturnType<typeof prepare>;
  private readonly writeRows: (rows: readonly LogWrite[]) => void;
  private readonly compactBatch: (from: number, to: number) => void;
  private readonly waiter = new RevisionWaiter(1_000);
  private readonly channels = new Set<WatchChannel<StoredObject>>();
  private readonly live = new Map<WatchChannel<StoredObject>, string>();
  private readonly tooLargeWaitMs: number;
  private readonly watchBufferLimit: number;
  private readonly compactionBatchSize: number;
  /** The newest committed revision: what readers, watchers and waiters see. */
  private revision: number;
  /** The newest revision handed out, committed or pending. */
  private lastAssigned: number;
  /** Writes of the batch not yet committed, in revision order, and their newest state per key (null: deleted). */
  private pending: PendingWrite[] = [];
  private readonly overlay = new Map<string, CurrentRow | null>();
  private flushWaiters: (() => void)[] = [];
  private compacted: number;
  private closed = false;
  private compactionTimer: NodeJS.Timeout | undefined;
  private readonly expiryTimer: NodeJS.Timeout;
  private revisionAtLastTick = 0;

  private constructor(db: Database.Database, options: EmbeddedStorageOptions) {
    this.db = db;
    this.statements = prepare(db);
    this.tooLargeWaitMs = options.tooLargeWaitMs ?? DEFAULT_TOO_LARGE_WAIT_MS;
    this.watchBufferLimit = options.watchBufferLimit ?? DEFAULT_WATCH_BUFFER_LIMIT;
    this.compactionBatchSize = options.compactionBatchSize ?? 1_000;
    this.revision = (this.statements.revision.get() as { seq: number }).seq;
    this.lastAssigned = this.revision;
    this.compacted = (this.statements.meta.get('compact_revision') as { value: number }).value;

    const s = this.statements;
    this.writeRows = db.transaction((rows: readonly LogWrite[]) => {
      for (const row of rows) {
        s.insertLog.run(row.revision, row.key, row.created ? 1 : 0, row.deleted ? 1 : 0, row.createRevision, row.prevRevision, row.value);
        if (row.deleted) s.deleteKv.run(row.key);
        else s.upsertKv.run(row.key, row.revision, row.expires);
      }
    });
    this.compactBatch = db.transaction((from: number, to: number) => {
      s.compactSuperseded.run(from, to);
      s.compactDeletions.run(from, to);
      s.setCompacted.run(to);
    });

    if (options.compactionIntervalMs > 0) {
      // Compacting to the revision seen one tick ago keeps every change of the last interval.
      this.compactionTimer = setInterval(() => this.onCompactionTick(), options.compactionIntervalMs);
      this.compactionTimer.unref();
    }
    this.expiryTimer = setInterval(() => this.expireKeys(), EXPIRY_SWEEP_MS);
    this.expiryTimer.unref();
  }

  /** Opens (creating if needed) the store in `options.dataDir`; fails if another process holds it. */
  static open(options: EmbeddedStorageOptions): EmbeddedStorage {
    if (!options.dataDir) {
      throw new StorageError('InvalidArgument', 'the embedded storage backend needs a data directory (--data-dir)');
    }
    mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
    const file = join(options.dataDir, EMBEDDED_DATABASE_FILE);
    // Readable by the owner only, whatever the umask; SQLite gives its WAL file the same mode.
    closeSync(openSync(file, 'a', 0o600));
    chmodSync(file, 0o600);
    let db: Database.Database | undefined;
    try {
      db = new Database(file, { timeout: 0 });
      // Exclusive locking must be set before the first access so that WAL runs without shared memory
      // and the lock is held by this connection alone.
      db.pragma('locking_mode = EXCLUSIVE');
      const mode = db.pragma('journal_mode = WAL', { simple: true });
      if (mode !== 'wal') throw new Error(`cannot switch ${file} to WAL journal mode (got ${String(mode)})`);
      db.pragma('synchronous = FULL');
      db.exec('BEGIN IMMEDIATE');
      db.exec(SCHEMA_SQL);
      let version = (db.prepare(SQL.meta).get('schema_version') as { value: number }).value;
      while (version < SCHEMA_VERSION && MIGRATIONS[version] !== undefined) {
        db.exec(MIGRATIONS[version]);
        version += 1;
        db.prepare(SQL.setSchemaVersion).run(version);
      }
      db.exec(INDEX_SQL);
      db.exec('COMMIT');
      if (version !== SCHEMA_VERSION) {
        throw new Error(`${file} has schema version ${version}; this build reads version ${SCHEMA_VERSION}`);
      }
      return new EmbeddedStorage(db, options);
    } catch (error) {
      db?.close();
      const code = (error as { code?: unknown }).code;
      if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
        throw new StorageError(
          'Unavailable',
          `data directory ${options.dataDir} is in use by another process (its store ${file} is locked); ` + `stop that process or choose another --data-dir`,
        );
      }
      if (error instanceof StorageError) throw error;
      throw new StorageError('Unavailable', `cannot open the embedded store ${file}: ${(error as Error).message}`);
    }
  }

  async create<T extends StoredObject>(key: string, object: T, options: CreateOptions = {}): Promise<T> {
    this.assertOpen();
    if (this.latestRow(key) !== undefined) throw StorageError.keyExists(key);
    const value = encodeObjectForWrite(key, object);
    const revision = this.lastAssigned + 1;
    const expires = expiryOf(options.ttlSeconds);
    await this.commit({ revision, key, created: true, deleted: false, createRevision: revision, prevRevision: 0, value, expires }, 'ADDED');
    return decodeObject<T>(value, revision);
  }

  async get<T extends StoredObject>(key: string, options: GetOptions = {}): Promise<T> {
    await this.reach(options.minRevision);
    // A write of this key is on its way to disk: read after it (a retry loop reading the committed
    // version and failing the pending one's precondition would otherwise never let the batch commit).
    if (this.overlay.has(key)) await this.committed();
    const row = this.currentRow(key);
    if (row === undefined) throw StorageError.keyNotFound(key);
    return decodeObject<T>(row.value, row.revision);
  }

  async update<T extends StoredObject>(key: string, object: T, options: UpdateOptions = {}): Promise<T> {
    this.assertOpen();
    const current = this.latestRow(key);
    if (current === undefined) throw StorageError.keyNotFound(key);
    this.check(key, current, options.preconditions);
    const value = encodeObjectForWrite(key, object);
    const revision = this.lastAssigned + 1;
    await this.commit(
      {
        revision,
        key,
        created: false,
        deleted: false,
        createRevision: current.createRevision,
        prevRevision: current.revision,
        value,
        expires: expiryOf(options.ttlSeconds),
      },
      'MODIFIED',
      current.value,
    );
    return decodeObject<T>(value, revision);
  }

  guaranteedUpdate<T extends StoredObject>(key: string, tryUpdate: TryUpdate<T>, options?: GuaranteedUpdateOptions): Promise<T> {
    return guaranteedUpdate(this, key, tryUpdate, options);
  }

  async delete<T extends StoredObject>(key: string, options: StorageDeleteOptions<T> = {}): Promise<T> {
    if (options.validate !== undefined) return validatedDelete(this, key, options);
    return this.deleteOnce<T>(key, options.preconditions);
  }

  /** One delete attempt; used by `delete` and by the validated delete loop. */
  async deleteOnce<T extends StoredObject>(key: string, preconditions?: Preconditions): Promise<T> {
    this.assertOpen();
    const current = this.latestRow(key);
    if (current === undefined) throw StorageError.keyNotFound(key);
    this.check(key, current, preconditions);
    const revision = this.lastAssigned + 1;
    await this.commit(
      {
        revision,
        key,
        created: false,
        deleted: true,
        createRevision: current.createRevision,
        prevRevision: current.revision,
        value: current.value,
        expires: null,
      },
      'DELETED',
      current.value,
    );
    return decodeObject<T>(current.value, revision);
  }

  async list<T extends StoredObject>(prefix: string, options: ListOptions = {}): Promise<ListResult<T>> {
    this.assertOpen();
    let revision: number;
    let after: string | undefined;
    let exact = false;
    if (options.continue) {
      ({ revision, after } = decodeContinue(options.continue));
      exact = true;
    } else if (options.revision !== undefined) {
      revision = options.revision;
      exact = options.match === 'Exact';
    } else {
      revision = this.revision;
    }
    await this.reach(revision);
    if (!exact) revision = this.revision;
    if (revision < this.compacted) {
      throw options.continue ? StorageError.continueExpired() : StorageError.expired(revision, this.compacted);
    }

    const { lo, hi } = prefixRange(prefix);
    const from = after === undefined ? lo : keyAfter(prefix + after);
    const limit = options.limit !== undefined && options.limit > 0 ? options.limit : undefined;
    const rows = this.rowsAt(revision, from, hi, limit === undefined ? NO_LIMIT : limit + 1);
    const more = limit !== undefined && rows.length > limit;
    const page = more ? rows.slice(0, limit) : rows;
    const result: ListResult<T> = { items: page.map((row) => decodeObject<T>(row.value, row.revision)), revision };
    if (more) {
      const last = page[page.length - 1].key;
      result.continue = encodeContinue({ revision, after: last.slice(prefix.length) });
      if (revision === this.revision) {
        result.remainingItemCount = (this.statements.countCurrent.get(keyAfter(last), hi) as { n: number }).n;
      }
    }
    return result;
  }

  async count(prefix: string): Promise<number> {
    this.assertOpen();
    const { lo, hi } = prefixRange(prefix);
    return (this.statements.countCurrent.get(lo, hi) as { n: number }).n;
  }

  async watch<T extends StoredObject>(prefix: string, options: StorageWatchOptions = {}): Promise<Watcher<T>> {
    this.assertOpen();
    if (options.revision !== undefined) await this.reach(options.revision);
    const start = options.revision ?? this.revision;
    if (start < this.compacted) throw StorageError.expired(start, this.compacted);

    const channel: WatchChannel<StoredObject> = new WatchChannel<StoredObject>({
      startRevision: start,
      bufferLimit: options.bufferLimit ?? this.watchBufferLimit,
      progressIntervalMs: options.progressIntervalMs,
      progressRevision: () => this.revision,
      onEnd: () => {
        this.channels.delete(channel);
        this.live.delete(channel);
      },
    });
    this.channels.add(channel);
    const { lo, hi } = prefixRange(prefix);
    if (options.initialEvents) {
      const rows = this.rowsAt(start, lo, hi, NO_LIMIT);
      channel.setInitial(
        rows.map((row) => ({ key: row.key, object: decodeObject(row.value, row.revision), revision: row.revision })),
        start,
      );
    }
    if (start === this.revision) {
      this.live.set(channel, prefix);
    } else {
      channel.setCatchUp(() => this.catchUp(channel, prefix, lo, hi));
    }
    return channel as unknown as Watcher<T>;
  }

  async currentRevision(): Promise<number> {
    this.assertOpen();
    return this.revision;
  }

  async compactedRevision(): Promise<number> {
    this.assertOpen();
    return this.compacted;
  }

  async compact(revision: number): Promise<void> {
    this.assertOpen();
    const target = Math.min(revision, this.revision);
    // Revisions differ in size by six orders of magnitude (a 1.5 MB object or a lease renewal): the
    // batch follows the time each one took, so one never holds the event loop much past its budget.
    let batch = Math.min(this.compactionBatchSize, COMPACTION_FIRST_BATCH);
    while (!this.closed && this.compacted < target) {
      const to = Math.min(this.compacted + batch, target);
      const started = performance.now();
      this.run(() => this.compactBatch(this.compacted, to));
      const took = performance.now() - started;
      this.compacted = to;
      const next = took > 0 ? Math.floor((batch * COMPACTION_BATCH_BUDGET_MS) / took) : batch * 2;
      batch = Math.max(1, Math.min(this.compactionBatchSize, next, batch * 2));
      // Let writers and readers in between batches.
      if (to < target) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  async healthCheck(): Promise<void> {
    this.assertOpen();
    this.run(() => this.db.prepare('SELECT 1').get());
  }

  async stats(): Promise<StorageStats[]> {
    this.assertOpen();
    const pages = this.run(() => this.db.pragma('page_count', { simple: true }) as number);
    const pageSize = this.run(() => this.db.pragma('page_size', { simple: true }) as number);
    return [{ sizeBytes: pages * pageSize, clusterId: 'embedded' }];
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.compactionTimer !== undefined) clearInterval(this.compactionTimer);
    clearInterval(this.expiryTimer);
    // Writes already accepted are committed (and answered) before the database closes.
    this.flush();
    for (const channel of [...this.channels]) channel.fail(StorageError.closed());
    this.waiter.notify();
    this.db.close();
  }

  private catchUp(channel: WatchChannel<StoredObject>, prefix: string, lo: string, hi: string): void {
    this.assertOpen();
    if (channel.cursor < this.compacted) throw StorageError.expired(channel.cursor, this.compacted);
    const rows = this.statements.history.all(channel.cursor, lo, hi, HISTORY_PAGE) as HistoryRow[];
    for (const row of rows) channel.pushHistory(eventFromHistory(row));
    if (rows.length < HISTORY_PAGE) {
      // History is exhausted up to this.revision and nothing can commit before the next line runs.
      this.live.set(channel, prefix);
      channel.goLive();
    }
  }

  private rowsAt(revision: number, from: string, hi: string, limit: number): KeyedRow[] {
    const s = this.statements;
    return (revision === this.revision ? s.listCurrent.all(from, hi, limit) : s.listAt.all(from, hi, revision, limit)) as KeyedRow[];
  }

  private currentRow(key: string): CurrentRow | undefined {
    return this.statements.current.get(key) as CurrentRow | undefined;
  }

  /** The key's state with the pending writes applied: what a write checks its preconditions against. */
  private latestRow(key: string): CurrentRow | undefined {
    const pending = this.overlay.get(key);
    if (pending !== undefined) return pending ?? undefined;
    return this.currentRow(key);
  }

  private check(key: string, current: CurrentRow, preconditions: Preconditions | undefined): void {
    if (preconditions === undefined) return;
    const metadata = { resourceVersion: String(current.revision), uid: preconditions.uid === undefined ? undefined : uidOf(current.value) };
    checkPreconditions(key, { metadata }, preconditions);
  }

  /** Adds the write to the batch; resolves once the batch is on disk and watchers have been fed. */
  private commit(row: LogWrite, type: ChangeType, prevValue?: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ row, type, prevValue, resolve, reject });
      this.overlay.set(row.key, row.deleted ? null : { revision: row.revision, createRevision: row.createRevision, value: row.value });
      this.lastAssigned = row.revision;
      // At the end of this turn of the event loop: every write its I/O brought joins the batch.
      if (this.pending.length === 1) setImmediate(() => this.flush());
    });
  }

  /** Resolves after the next batch has committed (or failed). */
  private committed(): Promise<void> {
    if (this.pending.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.flushWaiters.push(resolve));
  }

  /** Commits the pending batch in one transaction, then publishes it and answers its writers. */
  private flush(): void {
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    this.overlay.clear();
    const waiters = this.flushWaiters;
    this.flushWaiters = [];
    try {
      this.run(() => this.writeRows(batch.map((write) => write.row)));
    } catch (error) {
      // Rolled back as a whole: none of these revisions exists, and the next write reuses them.
      this.lastAssigned = this.revision;
      for (const write of batch) write.reject(error);
      for (const resolve of waiters) resolve();
      return;
    }
    for (const { row, type, prevValue } of batch) {
      this.revision = row.revision;
      this.publish(type, row.revision, row.key, row.value, prevValue, row.prevRevision);
    }
    for (const write of batch) write.resolve();
    for (const resolve of waiters) resolve();
  }

  private publish(type: ChangeType, revision: number, key: string, value: string, prevValue?: string, prevRevision = 0): void {
    let event: ChangeEvent<StoredObject> | undefined;
    for (const [channel, prefix] of this.live) {
      if (!key.startsWith(prefix)) continue;
      event ??= {
        type,
        key,
        object: decodeObject(value, revision),
        prevObject: prevValue === undefined ? undefined : decodeObject(prevValue, prevRevision),
        revision,
      };
      channel.push(event);
    }
    this.waiter.notify();
  }

  /** Waits until the store has reached `revision` (TooLargeResourceVersion after the wait). */
  private async reach(revision: number | undefined): Promise<void> {
    this.assertOpen();
    if (revision === undefined || revision <= this.revision) return;
    await this.waiter.waitFor(revision, this.tooLargeWaitMs, () => {
      this.assertOpen();
      return this.revision;
    });
  }

  /**
   * Deletes the keys whose time to live has passed, each at the version that expired: a write that
   * got there first (and set a new TTL or none) keeps the key.
   */
  private expireKeys(): void {
    if (this.closed) return;
    let rows: Array<{ key: string; revision: number }>;
    try {
      rows = this.statements.expired.all(Date.now(), EXPIRY_BATCH) as Array<{ key: string; revision: number }>;
    } catch {
      return; // the next sweep tries again
    }
    for (const row of rows) {
      this.deleteOnce(row.key, { resourceVersion: String(row.revision) }).catch(() => undefined);
    }
  }

  private onCompactionTick(): void {
    const target = this.revisionAtLastTick;
    this.revisionAtLastTick = this.revision;
    if (this.closed || target <= this.compacted) return;
    this.compact(target).catch((error: unknown) => {
      if (!this.closed) process.emitWarning(`embedded store compaction failed: ${String(error)}`);
    });
  }

  private run<R>(operation: () => R): R {
    try {
      return operation();
    } catch (error) {
      if (error instanceof StorageError) throw error;
      throw new StorageError('Unavailable', `embedded store: ${(error as Error).message}`);
    }
  }

  private assertOpen(): void {
    if (this.closed) throw StorageError.closed();
  }
}

interface PendingWrite {
  row: LogWrite;
  type: ChangeType;
  prevValue: string | undefined;
  resolve: () => void;
  reject: (error: unknown) => void;
}

interface LogWrite {
  revision: number;
  key: string;
  created: boolean;
  deleted: boolean;
  createRevision: number;
  prevRevision: number;
  value: string;
  /** When the key expires (ms since the epoch), or null for never. */
  expires: number | null;
}

function expiryOf(ttlSeconds: number | undefined): number | null {
  return ttlSeconds !== undefined && ttlSeconds > 0 ? Date.now() + ttlSeconds * 1000 : null;
}

function prepare(db: Database.Database) {
  return {
    revision: db.prepare(SQL.revision),
    meta: db.prepare(SQL.meta),
    setCompacted: db.prepare(SQL.setCompacted),
    current: db.prepare(SQL.current),
    insertLog: db.prepare(SQL.insertLog),
    upsertKv: db.prepare(SQL.upsertKv),
    deleteKv: db.prepare(SQL.deleteKv),
    listCurrent: db.prepare(SQL.listCurrent),
    countCurrent: db.prepare(SQL.countCurrent),
    listAt: db.prepare(SQL.listAt),
    expired: db.prepare(SQL.expired),
    history: db.prepare(SQL.history),
    compactSuperseded: db.prepare(SQL.compactSuperseded),
    compactDeletions: db.prepare(SQL.compactDeletions),
  };
}

function eventFromHistory(row: HistoryRow): ChangeEvent<StoredObject> {
  const object = decodeObject(row.value, row.revision);
  if (row.deleted) {
    return { type: 'DELETED', key: row.key, object, prevObject: decodeObject(row.value, row.prevRevision), revision: row.revision };
  }
  if (row.created) return { type: 'ADDED', key: row.key, object, revision: row.revision };
  return {
    type: 'MODIFIED',
    key: row.key,
    object,
    prevObject: row.prevValue === null ? undefined : decodeObject(row.prevValue, row.prevRevision),
    revision: row.revision,
  };
}
