import { readFileSync } from 'node:fs';
import type { ClientSession, Collection, Db, Document, MongoClientOptions } from 'mongodb';
import { Long, MongoClient, MongoError, MongoServerError } from 'mongodb';
import type { Preconditions } from '@svc/machinery';
import { decodeContinue, encodeContinue } from '../continue-token';
import { checkPreconditions, guaranteedUpdate, validatedDelete } from '../guaranteed-update';
import { keyAfter, prefixRange } from '../keys';
import { DEFAULT_TOO_LARGE_WAIT_MS, RevisionWaiter } from '../revision-waiter';
import type {
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
import { ChangeFeed } from './change-feed';
import type { KvDocument, LogDocument, MetaDocument } from './documents';
import { COLLECTIONS, eventFromLog, metaValue } from './documents';
import { databaseFromMongoUri, redactMongoUri } from './mongodb-uri';
import { serverProblem } from './server-check';

export interface MongoStorageOptions {
  /** One connection string; the server must be a replica set member (or a mongos). */
  uri: string;
  /** Database holding the store's collections; default: the one named in `uri`, else `svc`. */
  database?: string;
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  /** `--store-compaction-interval` in milliseconds; 0 keeps all history. */
  compactionIntervalMs: number;
  tooLargeWaitMs?: number;
  watchBufferLimit?: number;
  /** How long startup waits for a server (server selection timeout); default 10000. */
  connectTimeoutMs?: number;
  /** How often the feed checks the counter for revisions the stream has not delivered; default 1000. */
  reconcileIntervalMs?: number;
}

/** Reads outside snapshots and transactions see only majority-committed (never rolled back) data. */
const MAJORITY = { readConcern: { level: 'majority' } } as const;
const HISTORY_PAGE = 500;
const COMPACTION_BATCH = 500;
/** How often keys with a time to live are checked, and how many expire per check at most. */
const EXPIRY_SWEEP_MS = 1_000;
const EXPIRY_BATCH = 500;
const DEFAULT_DATABASE = 'svc';

interface KeyedRow {
  key: string;
  revision: number;
  value: string;
}

/**
 * The MongoDB backend. Three collections: `store_meta` (the revision counter and the compacted
 * revision), `store_kv` (current state by key) and `store_log` (every change keyed by revision).
 *
 * Every write is one transaction that (1) reads the key's current state, (2) checks preconditions,
 * (3) increments the counter document, (4) writes `store_kv` and (5) inserts the change into
 * `store_log` with `_id` = the new revision. Watches are fed by ONE change stream on `store_log` per
 * store (see ChangeFeed), fanned out in memory.
 *
 * ## Proof: revision order = commit order = the order watchers see
 * 1. Every write transaction updates the single counter document. MongoDB transactions use snapshot
 *    isolation with first-writer-wins conflict detection per document: a transaction that writes a
 *    document that another transaction has written, either still uncommitted or committed after the
 *    first one's snapshot was taken, fails with a WriteConflict (TransientTransactionError) and is
 *    retried from the start by `withTransaction`.
 * 2. Let T1 and T2 commit with revisions r1 < r2. T2's successful counter write saw r2 - 1 >= r1, so its
 *    snapshot contains T1's counter write, so T1 committed before T2 took its snapshot, and therefore
 *    before T2 committed. Conversely two committed transactions cannot have read the same counter value
 *    (the later writer would have conflicted). So revisions are unique, and ordered like commits; and
 *    since an aborted transaction's increment is rolled back, they have no gaps.
 * 3. A replica set primary gives commits increasing oplog timestamps in commit order (each write
 *    transaction's oplog entry carries one timestamp for all of its writes), and a change stream
 *    returns events in oplog order, only once majority-committed and without holes in between.
 * Hence the change stream on `store_log` yields revisions in increasing order; the feed additionally
 * checks that each revision is the previous one plus one, filling from the log otherwise.
 * Within this process writes are also queued one at a time, so concurrent local writers do not burn
 * retries on the counter; writers in other processes still serialize through step 1.
 *
 * Several API servers may share one database: each has its own change stream on the same log, so each
 * sees every other's writes. Compaction is an idempotent transaction on the compaction document, so
 * concurrent compactors serialize on it too.
 */
export class MongoStorage implements Storage {
  readonly backend = 'mongodb' as const;

  private readonly meta: Collection<MetaDocument>;
  private readonly kv: Collection<KvDocument>;
  private readonly log: Collection<LogDocument>;
  private readonly feed: ChangeFeed;
  private readonly waiter = new RevisionWaiter(100);
  private readonly channels = new Set<WatchChannel<StoredObject>>();
  private readonly live = new Map<WatchChannel<StoredObject>, string>();
  private readonly tooLargeWaitMs: number;
  private readonly watchBufferLimit: number;
  private writeQueue: Promise<unknown> = Promise.resolve();
  private closed = false;
  private compactionTimer: NodeJS.Timeout | undefined;
  private expiryTimer: NodeJS.Timeout | undefined;
  private sweeping = false;
  private revisionAtLastTick = 0;

  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
    private readonly options: MongoStorageOptions,
  ) {
    this.meta = db.collection<MetaDocument>(COLLECTIONS.meta);
    this.kv = db.collection<KvDocument>(COLLECTIONS.kv);
    this.log = db.collection<LogDocument>(COLLECTIONS.log);
    this.tooLargeWaitMs = options.tooLargeWaitMs ?? DEFAULT_TOO_LARGE_WAIT_MS;
    this.watchBufferLimit = options.watchBufferLimit ?? DEFAULT_WATCH_BUFFER_LIMIT;
    this.feed = new ChangeFeed({
      client,
      meta: this.meta,
      log: this.log,
      deliver: (row) => this.deliver(row),
      expire: (error) => {
        for (const channel of [...this.live.keys()]) channel.fail(error);
      },
      reconcileIntervalMs: options.reconcileIntervalMs ?? 1_000,
    });
  }

  /** Connects, checks that the server can run this backend, prepares the collections, starts the feed. */
  static async open(options: MongoStorageOptions): Promise<MongoStorage> {
    const shown = redactMongoUri(options.uri);
    const client = new MongoClient(options.uri, {
      serverSelectionTimeoutMS: options.connectTimeoutMs ?? 10_000,
      // No client-wide read concern: the driver gives snapshot sessions their snapshot read concern
      // only when an operation carries none, so plain reads ask for MAJORITY one by one.
      writeConcern: { w: 'majority', journal: true },
      readPreference: 'primary',
      appName: 'svc-storage',
      ...tlsOptions(options),
    });
    try {
      await client.connect();
    } catch (error) {
      await client.close().catch(() => undefined);
      throw new StorageError(
        'Unavailable',
        `cannot reach MongoDB at ${shown}: ${(error as Error).message}; the mongodb storage backend needs a ` +
          `reachable replica set member (mongod --replSet, initiated with rs.initiate(); see docker/mongodb.yml)`,
      );
    }
    try {
      const problem = serverProblem(await client.db('admin').command({ hello: 1 }), shown);
      if (problem !== undefined) throw new StorageError('Unavailable', problem);
      const database = options.database ?? databaseFromMongoUri(options.uri) ?? DEFAULT_DATABASE;
      const storage = new MongoStorage(client, client.db(database), options);
      await storage.initialize();
      return storage;
    } catch (error) {
      await client.close().catch(() => undefined);
      throw mapError(error);
    }
  }

  async create<T extends StoredObject>(key: string, object: T, options: CreateOptions = {}): Promise<T> {
    const value = encodeObjectForWrite(key, object);
    const expiry = expiryOf(options.ttlSeconds);
    const revision = await this.write(async (session) => {
      if ((await this.kv.findOne({ _id: key }, { session, projection: { _id: 1 } })) !== null) {
        throw StorageError.keyExists(key);
      }
      const rev = await this.nextRevision(session);
      await this.kv.insertOne({ _id: key, rev, createRev: rev, value, ...expiry }, { session });
      await this.log.insertOne({ _id: rev, key, created: true, deleted: false, createRev: rev, prevRev: 0, value }, { session });
      return rev;
    });
    return decodeObject<T>(value, revision);
  }

  async get<T extends StoredObject>(key: string, options: GetOptions = {}): Promise<T> {
    await this.reach(options.minRevision);
    const doc = await this.read(() => this.kv.findOne({ _id: key }, MAJORITY));
    if (doc === null) throw StorageError.keyNotFound(key);
    return decodeObject<T>(doc.value, doc.rev);
  }

  async update<T extends StoredObject>(key: string, object: T, options: UpdateOptions = {}): Promise<T> {
    const value = encodeObjectForWrite(key, object);
    const expiry = expiryOf(options.ttlSeconds);
    const revision = await this.write(async (session) => {
      const current = await this.currentDoc(session, key, options.preconditions);
      const rev = await this.nextRevision(session);
      // A replacement without expiresAt drops the old one: a write without a TTL keeps the key.
      await this.kv.replaceOne({ _id: key }, { rev, createRev: current.createRev, value, ...expiry }, { session });
      await this.log.insertOne(
        { _id: rev, key, created: false, deleted: false, createRev: current.createRev, prevRev: current.rev, value, prevValue: current.value },
        { session },
      );
      return rev;
    });
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
    const { revision, value } = await this.write(async (session) => {
      const current = await this.currentDoc(session, key, preconditions);
      const rev = await this.nextRevision(session);
      await this.kv.deleteOne({ _id: key }, { session });
      await this.log.insertOne(
        { _id: rev, key, created: false, deleted: true, createRev: current.createRev, prevRev: current.rev, value: current.value },
        { session },
      );
      return { revision: rev, value: current.value };
    });
    return decodeObject<T>(value, revision);
  }

  async list<T extends StoredObject>(prefix: string, options: ListOptions = {}): Promise<ListResult<T>> {
    this.assertOpen();
    let requested: number | undefined;
    let after: string | undefined;
    let exact = false;
    if (options.continue) {
      ({ revision: requested, after } = decodeContinue(options.continue));
      exact = true;
    } else if (options.revision !== undefined) {
      requested = options.revision;
      exact = options.match === 'Exact';
    }
    await this.reach(requested);

    const { lo, hi } = prefixRange(prefix);
    const from = after === undefined ? lo : keyAfter(prefix + after);
    const limit = options.limit !== undefined && options.limit > 0 ? options.limit : undefined;
    return this.snapshot(async (session) => {
      const state = await this.readState(session);
      const revision = exact ? (requested as number) : state.revision;
      if (revision < state.compacted) {
        throw options.continue ? StorageError.continueExpired() : StorageError.expired(revision, state.compacted);
      }
      if (revision > state.revision) throw StorageError.tooLarge(revision, state.revision);
      const rows = await this.rowsAt(session, revision, state.revision, from, hi, limit === undefined ? 0 : limit + 1);
      const more = limit !== undefined && rows.length > limit;
      const page = more ? rows.slice(0, limit) : rows;
      const result: ListResult<T> = { items: page.map((row) => decodeObject<T>(row.value, row.revision)), revision };
      if (more) {
        const last = page[page.length - 1].key;
        result.continue = encodeContinue({ revision, after: last.slice(prefix.length) });
        if (revision === state.revision) {
          result.remainingItemCount = await this.kv.countDocuments({ _id: { $gt: last, $lt: hi } }, { session });
        }
      }
      return result;
    });
  }

  async count(prefix: string): Promise<number> {
    const { lo, hi } = prefixRange(prefix);
    return this.read(() => this.kv.countDocuments({ _id: { $gte: lo, $lt: hi } }, MAJORITY));
  }

  async watch<T extends StoredObject>(prefix: string, options: StorageWatchOptions = {}): Promise<Watcher<T>> {
    this.assertOpen();
    await this.reach(options.revision);
    const { lo, hi } = prefixRange(prefix);
    const { start, initial } = await this.snapshot(async (session) => {
      const state = await this.readState(session);
      const from = options.revision ?? state.revision;
      if (from < state.compacted) throw StorageError.expired(from, state.compacted);
      const rows = options.initialEvents ? await this.rowsAt(session, from, state.revision, lo, hi, 0) : undefined;
      return { start: from, initial: rows };
    });
    this.assertOpen();

    const channel: WatchChannel<StoredObject> = new WatchChannel<StoredObject>({
      startRevision: start,
      bufferLimit: options.bufferLimit ?? this.watchBufferLimit,
      progressIntervalMs: options.progressIntervalMs,
      progressRevision: () => this.feed.position,
      onEnd: () => {
        this.channels.delete(channel);
        this.live.delete(channel);
      },
    });
    this.channels.add(channel);
    if (initial !== undefined) {
      channel.setInitial(
        initial.map((row) => ({ key: row.key, object: decodeObject(row.value, row.revision), revision: row.revision })),
        start,
      );
    }
    // The feed delivers every revision above its position; a watcher at or above it can join at once
    // and drops what it already has. One below it first reads the log (see catchUp).
    if (start >= this.feed.position) this.live.set(channel, prefix);
    else channel.setCatchUp(() => this.catchUp(channel, prefix, lo, hi));
    return channel as unknown as Watcher<T>;
  }

  async currentRevision(): Promise<number> {
    return this.read(() => this.readRevision());
  }

  async compactedRevision(): Promise<number> {
    return this.read(async () => metaValue(await this.meta.findOne({ _id: 'compaction' }, MAJORITY), 0));
  }

  async compact(revision: number): Promise<void> {
    this.assertOpen();
    const target = Math.min(revision, await this.currentRevision());
    let done = false;
    while (!done && !this.closed) {
      done = await this.transaction(async (session) => {
        const from = metaValue(await this.meta.findOne({ _id: 'compaction' }, { session }), 0);
        if (from >= target) return true;
        const to = Math.min(from + COMPACTION_BATCH, target);
        // Same rule as the embedded store: drop rows superseded at or below `to`, and deletions.
        const rows = await this.log.find({ _id: { $gt: from, $lte: to } }, { session, projection: { prevRev: 1, deleted: 1 } }).toArray();
        const doomed: number[] = [];
        for (const row of rows) {
          if (row.prevRev > 0) doomed.push(row.prevRev);
          if (row.deleted) doomed.push(row._id);
        }
        if (doomed.length > 0) await this.log.deleteMany({ _id: { $in: doomed } }, { session });
        await this.meta.updateOne({ _id: 'compaction' }, { $set: { value: to } }, { session });
        return to >= target;
      });
    }
  }

  async healthCheck(timeoutMs = 2_000): Promise<void> {
    this.assertOpen();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new StorageError('Unavailable', `MongoDB did not answer within ${timeoutMs}ms`)), timeoutMs);
    });
    try {
      await Promise.race([this.read(() => this.client.db('admin').command({ ping: 1 })), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async stats(): Promise<StorageStats[]> {
    this.assertOpen();
    const stats = (await this.read(() => this.db.command({ dbStats: 1 }))) as { dataSize?: number; indexSize?: number };
    return [{ sizeBytes: Number(stats.dataSize ?? 0) + Number(stats.indexSize ?? 0), clusterId: this.db.databaseName }];
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.compactionTimer !== undefined) clearInterval(this.compactionTimer);
    if (this.expiryTimer !== undefined) clearInterval(this.expiryTimer);
    for (const channel of [...this.channels]) channel.fail(StorageError.closed());
    this.waiter.notify();
    await this.feed.close();
    await this.writeQueue.catch(() => undefined);
    await this.client.close();
  }

  private async initialize(): Promise<void> {
    const db = this.client.db(this.meta.dbName);
    const existing = new Set((await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name));
    for (const name of Object.values(COLLECTIONS)) {
      if (existing.has(name)) continue;
      await db.createCollection(name).catch((error: unknown) => {
        if (!(error instanceof MongoServerError && error.code === 48)) throw error; // NamespaceExists: another process won
      });
    }
    await this.log.createIndex({ key: 1, _id: -1 }, { name: 'key_revision' });
    await this.kv.createIndex({ expiresAt: 1 }, { name: 'expires_at', sparse: true });
    // A fresh store is at revision 1, so no object ever carries resourceVersion "0".
    await this.initMeta('revision', Long.fromNumber(1));
    await this.initMeta('compaction', Long.fromNumber(0));
    await this.feed.start();
    this.expiryTimer = setInterval(() => void this.expireKeys(), EXPIRY_SWEEP_MS);
    this.expiryTimer.unref();
    if (this.options.compactionIntervalMs > 0) {
      this.compactionTimer = setInterval(() => this.onCompactionTick(), this.options.compactionIntervalMs);
      this.compactionTimer.unref();
    }
  }

  private async initMeta(id: MetaDocument['_id'], value: Long): Promise<void> {
    try {
      await this.meta.updateOne({ _id: id }, { $setOnInsert: { value } }, { upsert: true });
    } catch (error) {
      if (!(error instanceof MongoServerError && error.code === 11000)) throw error; // concurrent upsert won
    }
  }

  private deliver(row: LogDocument): void {
    let event: ReturnType<typeof eventFromLog> | undefined;
    for (const [channel, prefix] of this.live) {
      if (!row.key.startsWith(prefix)) continue;
      event ??= eventFromLog(row);
      channel.push(event);
    }
    this.waiter.notify();
  }

  private async catchUp(channel: WatchChannel<StoredObject>, prefix: string, lo: string, hi: string): Promise<void> {
    const cursor = channel.cursor;
    const page = await this.snapshot(async (session) => {
      const state = await this.readState(session);
      if (cursor < state.compacted) throw StorageError.expired(cursor, state.compacted);
      const rows = await this.log.find({ _id: { $gt: cursor }, key: { $gte: lo, $lt: hi } }, { session, sort: { _id: 1 }, limit: HISTORY_PAGE }).toArray();
      return { rows, revision: state.revision };
    });
    if (channel.isOver) return;
    for (const row of page.rows) channel.pushHistory(eventFromLog(row));
    if (page.rows.length < HISTORY_PAGE) {
      // Every change under the prefix up to page.revision is queued now.
      channel.cursor = Math.max(channel.cursor, page.revision);
      // Join the feed only once it has nothing older than the cursor left to deliver, in the same
      // synchronous step as the check; otherwise read the log again.
      if (channel.cursor >= this.feed.position) {
        this.live.set(channel, prefix);
        channel.goLive();
      }
    }
  }

  private async rowsAt(session: ClientSession, revision: number, current: number, from: string, hi: string, limit: number): Promise<KeyedRow[]> {
    if (revision === current) {
      const docs = await this.kv.find({ _id: { $gte: from, $lt: hi } }, { session, sort: { _id: 1 }, limit }).toArray();
      return docs.map((doc) => ({ key: doc._id, revision: doc.rev, value: doc.value }));
    }
    const pipeline: Document[] = [
      { $match: { key: { $gte: from, $lt: hi }, _id: { $lte: revision } } },
      { $sort: { key: 1, _id: -1 } },
      { $group: { _id: '$key', revision: { $first: '$_id' }, deleted: { $first: '$deleted' }, value: { $first: '$value' } } },
      { $match: { deleted: false } },
      { $sort: { _id: 1 } },
      ...(limit > 0 ? [{ $limit: limit }] : []),
    ];
    const docs = await this.log.aggregate<{ _id: string; revision: number; value: string }>(pipeline, { session, allowDiskUse: true }).toArray();
    return docs.map((doc) => ({ key: doc._id, revision: doc.revision, value: doc.value }));
  }

  private async currentDoc(session: ClientSession, key: string, preconditions: Preconditions | undefined): Promise<KvDocument> {
    const current = await this.kv.findOne({ _id: key }, { session });
    if (current === null) throw StorageError.keyNotFound(key);
    if (preconditions !== undefined) {
      const uid = preconditions.uid === undefined ? undefined : uidOf(current.value);
      checkPreconditions(key, { metadata: { resourceVersion: String(current.rev), uid } }, preconditions);
    }
    return current;
  }

  private async nextRevision(session: ClientSession): Promise<number> {
    const counter = await this.meta.findOneAndUpdate({ _id: 'revision' }, { $inc: { value: 1 } }, { session, returnDocument: 'after' });
    if (counter === null) throw new StorageError('Unavailable', 'MongoDB store has no revision counter');
    return metaValue(counter, 0);
  }

  private async readRevision(): Promise<number> {
    return metaValue(await this.meta.findOne({ _id: 'revision' }, MAJORITY), 1);
  }

  private async readState(session: ClientSession): Promise<{ revision: number; compacted: number }> {
    const docs = await this.meta.find({ _id: { $in: ['revision', 'compaction'] } }, { session }).toArray();
    const value = (id: string): number =>
      metaValue(
        docs.find((doc) => doc._id === id),
        0,
      );
    return { revision: value('revision'), compacted: value('compaction') };
  }

  private async reach(revision: number | undefined): Promise<void> {
    this.assertOpen();
    if (revision === undefined) return;
    await this.waiter.waitFor(revision, this.tooLargeWaitMs, () => {
      this.assertOpen();
      // The feed's position is a lower bound that costs nothing; the counter is the truth.
      return revision <= this.feed.position ? this.feed.position : this.read(() => this.readRevision());
    });
  }

  /** A write transaction; local writes queue so they do not conflict on the counter among themselves. */
  private write<R>(body: (session: ClientSession) => Promise<R>): Promise<R> {
    this.assertOpen();
    const result = this.writeQueue.then(() => this.transaction(body));
    this.writeQueue = result.catch(() => undefined);
    return result;
  }

  private async transaction<R>(body: (session: ClientSession) => Promise<R>): Promise<R> {
    this.assertOpen();
    const session = this.client.startSession();
    try {
      return await session.withTransaction(() => body(session), {
        readConcern: { level: 'snapshot' },
        writeConcern: { w: 'majority', journal: true },
        readPreference: 'primary',
      });
    } catch (error) {
      throw mapError(error);
    } finally {
      await session.endSession().catch(() => undefined);
    }
  }

  private async snapshot<R>(read: (session: ClientSession) => Promise<R>): Promise<R> {
    this.assertOpen();
    const session = this.client.startSession({ snapshot: true });
    try {
      return await read(session);
    } catch (error) {
      throw mapError(error);
    } finally {
      await session.endSession().catch(() => undefined);
    }
  }

  private async read<R>(operation: () => Promise<R>): Promise<R> {
    this.assertOpen();
    try {
      return await operation();
    } catch (error) {
      throw mapError(error);
    }
  }

  /**
   * Deletes the keys whose time to live has passed, each at the version that expired (so a write that
   * got there first keeps the key). Every API server on the database sweeps; the first delete of a
   * key wins and the others fail their precondition, which is ignored.
   */
  private async expireKeys(): Promise<void> {
    if (this.closed || this.sweeping) return;
    this.sweeping = true;
    try {
      const due = await this.kv.find({ expiresAt: { $lte: Date.now() } }, { projection: { _id: 1, rev: 1 }, limit: EXPIRY_BATCH, ...MAJORITY }).toArray();
      for (const doc of due) {
        await this.deleteOnce(doc._id, { resourceVersion: String(doc.rev) }).catch(() => undefined);
      }
    } catch {
      // the next sweep tries again
    } finally {
      this.sweeping = false;
    }
  }

  private onCompactionTick(): void {
    void (async () => {
      const current = await this.currentRevision();
      const target = this.revisionAtLastTick;
      this.revisionAtLastTick = current;
      if (target > 0) await this.compact(target);
    })().catch((error: unknown) => {
      if (!this.closed) process.emitWarning(`MongoDB store compaction failed: ${String(error)}`);
    });
  }

  private assertOpen(): void {
    if (this.closed) throw StorageError.closed();
  }
}

function expiryOf(ttlSeconds: number | undefined): { expiresAt?: number } {
  return ttlSeconds !== undefined && ttlSeconds > 0 ? { expiresAt: Date.now() + ttlSeconds * 1000 } : {};
}

function tlsOptions(options: MongoStorageOptions): MongoClientOptions {
  if (!options.caFile && !options.certFile && !options.keyFile) return {};
  const tls: MongoClientOptions = { tls: true };
  if (options.caFile) tls.ca = readFileSync(options.caFile);
  if (options.certFile && options.keyFile) {
    tls.cert = readFileSync(options.certFile);
    tls.key = readFileSync(options.keyFile);
  } else if (options.certFile) {
    tls.tlsCertificateKeyFile = options.certFile;
  }
  return tls;
}

function mapError(error: unknown): unknown {
  if (error instanceof StorageError) return error;
  if (error instanceof MongoError) return new StorageError('Unavailable', `MongoDB: ${error.message}`);
  return error;
}
