import type { Preconditions } from '@svc/machinery';
import { decodeContinue, encodeContinue } from '../continue-token';
import { checkPreconditions, guaranteedUpdate, validatedDelete } from '../guaranteed-update';
import { keyAfter } from '../keys';
import { DEFAULT_TOO_LARGE_WAIT_MS, RevisionWaiter } from '../revision-waiter';
import type {
  ChangeEvent,
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
import { StorageError, isStorageError } from '../storage-error';
import { encodeObjectForWrite } from '../stored-value';
import { JSON_VALUES, type ValueCodec } from '../value-codec';
import { DEFAULT_WATCH_BUFFER_LIMIT, WatchChannel } from '../watch-channel';
import { EtcdClient, grpcFailure, storageErrorOf, type EtcdTlsFiles } from './etcd-client';
import { EtcdFeed } from './etcd-feed';
import {
  CompareResult,
  CompareTarget,
  ETCD,
  headerRevision,
  int64Number,
  uint64Text,
  type Compare,
  type EtcdKeyValue,
  type RequestOp,
  type TxnResponse,
  type EtcdWatchEvent,
} from './etcd-protocol';
import { EtcdWatchStream, type EventBatch, type WatchStreamOutcome } from './etcd-watch-stream';
import { LeaseManager } from './lease-manager';

/**
 * The key Kubernetes' API servers coordinate compaction through: its value is the revision last
 * compacted to and its version is a logical clock that one compare-and-swap per interval advances,
 * so that several API servers on one cluster compact once per interval, not once each.
 */
export const COMPACT_REVISION_KEY = 'compact_rev_key';

export interface Store3StorageOptions extends EtcdTlsFiles {
  /** `--store-servers`: the members' client URLs. */
  servers: readonly string[];
  /** `--store-compaction-interval` in milliseconds; 0 leaves compaction to others. */
  compactionIntervalMs: number;
  tooLargeWaitMs?: number;
  watchBufferLimit?: number;
  /** `--lease-reuse-duration-seconds`. */
  leaseReuseDurationSeconds?: number;
  /** How long `open` waits for the cluster to answer; default 10000. */
  connectTimeoutMs?: number;
  /** One operation over all its attempts; default 15000. */
  requestTimeoutMs?: number;
  /** How values are written (`--storage-media-type`); every form is read whichever wrote it. */
  codec?: ValueCodec;
}

interface Current {
  value: Buffer;
  modRevision: number;
}

const COMPACT_KEY = Buffer.from(COMPACT_REVISION_KEY);
const MAX_BUFFERED_PROGRESS_WAIT_MS = 5_000;

/**
 * `--storage-backend=store3`: the storage contract on an etcd v3 cluster, through etcd's gRPC API.
 *
 * - Keys are the API server's keys as they are (Kubernetes' layout under `--store-prefix`), values
 *   the object without its resourceVersion, which is etcd's revision of the key's last write
 *   (`mod_revision`); a list's revision is the revision etcd read it at.
 * - Creates, updates and deletes are transactions comparing the key's `mod_revision` (0 for "absent",
 *   the precondition's resourceVersion for "unchanged"), so no write goes through on a stale read;
 *   one write is one revision, and etcd's revisions are the contract's revisions.
 * - Reads are linearizable (etcd's default), so a read after a write through any API server sees it.
 * - Lists read at a revision with etcd's range at that revision; pages carry the first page's
 *   revision, so they form one snapshot until compaction removes it (410 then, as in Kubernetes).
 * - Watches come from one feed per store, a watch of every key of the cluster (see
 *   EtcdWatchStream), fanned out in memory: one stream per API server however many resources and
 *   watchers it has. A watch from an older revision catches up on a stream of its own from that
 *   revision, then joins the feed.
 * - Keys with a time to live are attached to etcd leases (LeaseManager); etcd deletes them.
 * - Compaction: every interval, Kubernetes' compare-and-swap on COMPACT_REVISION_KEY, then a
 *   compaction to the revision seen one interval earlier.
 */
export class Store3Storage implements Storage {
  readonly backend = 'store3' as const;

  private readonly client: EtcdClient;
  private readonly feed: EtcdFeed;
  private readonly leases: LeaseManager;
  private readonly codec: ValueCodec;
  private readonly waiter = new RevisionWaiter(100);
  private readonly channels = new Set<WatchChannel<StoredObject>>();
  private readonly live = new Map<WatchChannel<StoredObject>, string>();
  private readonly catchUps = new Set<EtcdWatchStream>();
  private readonly tooLargeWaitMs: number;
  private readonly watchBufferLimit: number;
  private compacted = 0;
  private closed = false;
  private compactionTimer: NodeJS.Timeout | undefined;
  /** Kubernetes' compactor state: the compaction key's version last seen, and the revision to compact to next. */
  private compactTime = 0;
  private compactNext = 0;
  private progressRead: Promise<number> | undefined;

  private constructor(client: EtcdClient, startRevision: number, options: Store3StorageOptions) {
    this.client = client;
    this.codec = options.codec ?? JSON_VALUES;
    this.tooLargeWaitMs = options.tooLargeWaitMs ?? DEFAULT_TOO_LARGE_WAIT_MS;
    this.watchBufferLimit = options.watchBufferLimit ?? DEFAULT_WATCH_BUFFER_LIMIT;
    this.leases = new LeaseManager(client, { reuseDurationSeconds: options.leaseReuseDurationSeconds });
    this.feed = new EtcdFeed(client, startRevision, { onBatch: (batch) => this.publish(batch), onLost: (error) => this.loseLive(error) }, () =>
      this.currentRevision(),
    );
    this.feed.start();
    if (options.compactionIntervalMs > 0) {
      this.compactionTimer = setInterval(() => void this.onCompactionTick(), options.compactionIntervalMs);
      this.compactionTimer.unref();
    }
  }

  /** Connects to the cluster and starts following it; fails with Unavailable if no member answers in time. */
  static async open(options: Store3StorageOptions): Promise<Store3Storage> {
    const client = new EtcdClient({
      endpoints: options.servers,
      caFile: options.caFile,
      certFile: options.certFile,
      keyFile: options.keyFile,
      requestTimeoutMs: options.requestTimeoutMs,
    });
    try {
      const response = await client.call(ETCD.range, { key: COMPACT_KEY, count_only: true }, { timeoutMs: options.connectTimeoutMs ?? 10_000 });
      return new Store3Storage(client, headerRevision(response.header), options);
    } catch (error) {
      client.close();
      const cause = storageErrorOf(error, 'read');
      throw new StorageError('Unavailable', `cannot reach the etcd cluster at ${options.servers.join(', ')}: ${cause.message}`);
    }
  }

  // ---- single-key operations ----

  async create<T extends StoredObject>(key: string, object: T, options: CreateOptions = {}): Promise<T> {
    this.assertOpen();
    const value = this.encode(key, object);
    const lease = await this.leaseFor(options.ttlSeconds);
    const response = await this.txn([modRevision(key, CompareResult.EQUAL, 0)], [{ request_put: { key: Buffer.from(key), value, lease } }], [], 'create');
    if (!response.succeeded) throw StorageError.keyExists(key);
    return this.decode<T>(key, value, headerRevision(response.header));
  }

  async get<T extends StoredObject>(key: string, options: GetOptions = {}): Promise<T> {
    await this.reach(options.minRevision);
    const current = await this.read(key);
    if (current === undefined) throw StorageError.keyNotFound(key);
    return this.decode<T>(key, current.value, current.modRevision);
  }

  async update<T extends StoredObject>(key: string, object: T, options: UpdateOptions = {}): Promise<T> {
    this.assertOpen();
    const value = this.encode(key, object);
    const lease = await this.leaseFor(options.ttlSeconds);
    const put: RequestOp = { request_put: { key: Buffer.from(key), value, lease } };
    const response = await this.guardedWrite(key, options.preconditions, put, 'update');
    return this.decode<T>(key, value, headerRevision(response.header));
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
    const del: RequestOp = { request_delete_range: { key: Buffer.from(key), prev_kv: true } };
    const response = await this.guardedWrite(key, preconditions, del, 'delete');
    const previous = response.responses?.[0]?.response_delete_range?.prev_kvs?.[0];
    if (previous?.value === undefined) throw new StorageError('Unavailable', `etcd deleted ${key} without returning its last state`, key);
    return this.decode<T>(key, Buffer.from(previous.value), headerRevision(response.header));
  }

  /**
   * A write (`op`) that happens only if the key exists and meets the preconditions. A resourceVersion
   * precondition is one compare on `mod_revision`; a uid precondition needs the stored object, so the
   * key is read first and the write compares against the version read (read again if it changed,
   * unless the caller's resourceVersion pinned the version).
   */
  private async guardedWrite(key: string, preconditions: Preconditions | undefined, op: RequestOp, what: string): Promise<TxnResponse> {
    const rv = preconditions?.resourceVersion;
    if (preconditions?.uid === undefined && (rv === undefined || /^[1-9][0-9]{0,15}$/.test(rv))) {
      const compare = rv === undefined ? modRevision(key, CompareResult.GREATER, 0) : modRevision(key, CompareResult.EQUAL, Number(rv));
      const response = await this.txn([compare], [op], [{ request_range: { key: Buffer.from(key) } }], what);
      if (response.succeeded) return response;
      const found = response.responses?.[0]?.response_range?.kvs?.[0];
      if (found === undefined) throw StorageError.keyNotFound(key);
      throw StorageError.conflict(key, rv ?? '', int64Number(found.mod_revision));
    }
    for (;;) {
      const current = await this.read(key);
      if (current === undefined) throw StorageError.keyNotFound(key);
      checkPreconditions(key, this.decode(key, current.value, current.modRevision), preconditions);
      const response = await this.txn([modRevision(key, CompareResult.EQUAL, current.modRevision)], [op], [], what);
      if (response.succeeded) return response;
    }
  }

  // ---- lists ----

  async list<T extends StoredObject>(prefix: string, options: ListOptions = {}): Promise<ListResult<T>> {
    this.assertOpen();
    let revision = 0;
    let after: string | undefined;
    if (options.continue) {
      ({ revision, after } = decodeContinue(options.continue));
    } else if (options.revision !== undefined && options.revision > 0) {
      await this.reach(options.revision);
      if (options.match === 'Exact') revision = options.revision;
    }
    const { key: lo, rangeEnd } = prefixRange(prefix);
    const from = after === undefined ? lo : Buffer.from(keyAfter(prefix + after));
    const limit = options.limit !== undefined && options.limit > 0 ? options.limit : 0;
    let response;
    try {
      response = await this.client.call(ETCD.range, { key: from, range_end: rangeEnd, limit, revision });
    } catch (error) {
      throw await this.readFailure(error, revision, options.continue !== undefined, 'list');
    }
    const readAt = revision > 0 ? revision : headerRevision(response.header);
    const kvs = response.kvs ?? [];
    const result: ListResult<T> = { items: kvs.map((kv) => this.decodeKv<T>(kv)), revision: readAt };
    if (response.more && kvs.length > 0) {
      const last = Buffer.from(kvs[kvs.length - 1].key).toString('utf8');
      result.continue = encodeContinue({ revision: readAt, after: last.slice(prefix.length) });
      result.remainingItemCount = Math.max(0, int64Number(response.count) - kvs.length);
    }
    return result;
  }

  async count(prefix: string): Promise<number> {
    this.assertOpen();
    const { key, rangeEnd } = prefixRange(prefix);
    try {
      const response = await this.client.call(ETCD.range, { key, range_end: rangeEnd, count_only: true });
      return int64Number(response.count);
    } catch (error) {
      throw storageErrorOf(error, 'count');
    }
  }

  // ---- watches ----

  async watch<T extends StoredObject>(prefix: string, options: StorageWatchOptions = {}): Promise<Watcher<T>> {
    this.assertOpen();
    if (options.revision !== undefined) await this.reach(options.revision);
    const start = options.revision ?? (await this.currentRevision());
    if (start < this.compacted) throw StorageError.expired(start, this.compacted);

    const channel: WatchChannel<StoredObject> = new WatchChannel<StoredObject>({
      startRevision: start,
      bufferLimit: options.bufferLimit ?? this.watchBufferLimit,
      progressIntervalMs: options.progressIntervalMs,
      progressRevision: () => this.feed.cursor,
      requestProgress: (emit) => void this.progressTarget().then((target) => this.feed.waitFor(target, MAX_BUFFERED_PROGRESS_WAIT_MS).then(emit), emit),
      onEnd: () => {
        this.channels.delete(channel);
        this.live.delete(channel);
      },
    });
    if (options.initialEvents) {
      const { key, rangeEnd } = prefixRange(prefix);
      let response;
      try {
        response = await this.client.call(ETCD.range, { key, range_end: rangeEnd, revision: start });
      } catch (error) {
        throw await this.readFailure(error, start, false, 'watch');
      }
      channel.setInitial(
        (response.kvs ?? []).map((kv) => ({ key: Buffer.from(kv.key).toString('utf8'), object: this.decodeKv(kv), revision: int64Number(kv.mod_revision) })),
        start,
      );
    }
    this.assertOpen();
    this.channels.add(channel);
    if (start >= this.feed.cursor) {
      // Feed events up to `start` are behind the channel's cursor and dropped by it.
      this.live.set(channel, prefix);
    } else {
      await this.startCatchUp(channel, prefix, start);
    }
    return channel as unknown as Watcher<T>;
  }

  /**
   * A watch from a revision the feed has passed: a stream of its own from that revision (etcd says
   * there whether it was compacted) is read as the consumer pulls, until it reaches the feed; in the
   * same synchronous step the channel joins the feed, so nothing is missed or repeated.
   */
  private async startCatchUp(channel: WatchChannel<StoredObject>, prefix: string, start: number): Promise<void> {
    const stream = new EtcdWatchStream(this.client, start);
    this.catchUps.add(stream);
    void channel.ended.then(() => {
      stream.close();
      this.catchUps.delete(stream);
    });
    // History from `start` exists (the feed is past it), so the first answer comes at once and tells
    // whether `start` was compacted: Expired then rejects the watch() call itself.
    let held: WatchStreamOutcome | undefined = await stream.next();
    if (held.kind !== 'batch') {
      stream.close();
      this.catchUps.delete(stream);
      this.channels.delete(channel);
      if (held.kind === 'compacted') throw StorageError.expired(start, held.compactRevision);
      this.client.failedOver(held.endpoint);
      throw held.error;
    }
    let position = start;
    channel.setCatchUp(async () => {
      const outcome = held ?? (await stream.next());
      held = undefined;
      if (outcome.kind === 'compacted') throw StorageError.expired(position, outcome.compactRevision);
      if (outcome.kind === 'failed') {
        this.client.failedOver(outcome.endpoint);
        throw outcome.error;
      }
      for (const event of outcome.batch.events) {
        // The events of `start` itself belong to the state the watch begins from; they are skipped
        // before they are read. The stream starts at `start`, not after it, so that etcd answers
        // whether `start` was compacted (below the compaction point the watch is Expired); but at the
        // compaction revision itself etcd may still hold a deletion, until its physical compaction
        // (which runs after the compaction request returns) removes the tombstone, and it reports
        // that deletion without a previous value, which lies below the compaction point.
        if (int64Number(event.kv?.mod_revision) <= start) continue;
        const change = this.changeOf(event, prefix);
        if (change !== undefined) channel.pushHistory(change);
      }
      position = outcome.batch.revision;
      if (position >= this.feed.cursor) {
        stream.close();
        this.catchUps.delete(stream);
        if (channel.isOver) return;
        this.live.set(channel, prefix);
        channel.goLive();
      }
    });
  }

  private publish(batch: EventBatch): void {
    if (this.live.size > 0) {
      for (const event of batch.events) {
        const key = Buffer.from(event.kv?.key ?? []).toString('utf8');
        let change: ChangeEvent<StoredObject> | undefined;
        for (const [channel, prefix] of this.live) {
          if (!key.startsWith(prefix)) continue;
          try {
            change ??= this.changeOf(event, prefix);
          } catch (error) {
            // A value this store cannot read (written by another tool) ends the watches that would show it.
            channel.fail(isStorageError(error) ? error : new StorageError('Unavailable', `cannot decode ${key}: ${(error as Error).message}`, key));
            continue;
          }
          if (change !== undefined) channel.push(change);
        }
      }
    }
    this.waiter.notify();
  }

  /** The contract's change for an etcd event under `prefix`, or undefined for a key outside it. */
  private changeOf(event: EtcdWatchEvent, prefix: string): ChangeEvent<StoredObject> | undefined {
    const kv = event.kv;
    if (kv === undefined) return undefined;
    const key = Buffer.from(kv.key).toString('utf8');
    if (!key.startsWith(prefix)) return undefined;
    const revision = int64Number(kv.mod_revision);
    const object = event.type === 1 ? undefined : this.decode(key, Buffer.from(kv.value ?? []), revision);
    if (object !== undefined && int64Number(kv.create_revision) === revision) return { type: 'ADDED', key, object, revision };
    // etcd reads a change's previous value when it sends the event, at the revision before it; a
    // compaction past that revision in between (a catch-up read slowly, a feed far behind) leaves it
    // out. A deletion's object and the selectors' view of an update need it, so the watch cannot go
    // on exactly from here: Expired, and the client lists again (Kubernetes' watcher, too, ends a
    // watch on a change that comes without its previous value).
    const prev = event.prev_kv;
    if (prev?.value === undefined) throw StorageError.expired(revision - 1, Math.max(this.compacted, revision));
    const prevObject = this.decodeKv(prev);
    // A deletion's last state is its previous value, carrying the deletion revision.
    if (object === undefined) return { type: 'DELETED', key, object: this.decode(key, Buffer.from(prev.value), revision), prevObject, revision };
    return { type: 'MODIFIED', key, object, prevObject, revision };
  }

  /** The feed could not resume: every live watch has missed changes and ends with Expired. */
  private loseLive(error: StorageError): void {
    for (const channel of [...this.live.keys()]) channel.fail(error);
  }

  /** The store's revision now, read once for every progress request made meanwhile. */
  private progressTarget(): Promise<number> {
    this.progressRead ??= this.currentRevision().finally(() => (this.progressRead = undefined));
    return this.progressRead;
  }

  // ---- revisions, compaction, health ----

  async currentRevision(): Promise<number> {
    this.assertOpen();
    try {
      const response = await this.client.call(ETCD.range, { key: COMPACT_KEY, count_only: true });
      return headerRevision(response.header);
    } catch (error) {
      throw storageErrorOf(error, 'read');
    }
  }

  async compactedRevision(): Promise<number> {
    this.assertOpen();
    const stored = await this.read(COMPACT_REVISION_KEY).catch(() => undefined);
    const value = stored === undefined ? 0 : Number(stored.value.toString('utf8'));
    if (Number.isSafeInteger(value) && value > this.compacted) this.compacted = value;
    return this.compacted;
  }

  async compact(revision: number): Promise<void> {
    this.assertOpen();
    const target = Math.min(revision, await this.currentRevision());
    if (target <= this.compacted) return;
    await this.compactTo(target);
  }

  async healthCheck(timeoutMs = 2_000): Promise<void> {
    this.assertOpen();
    try {
      await this.client.call(ETCD.range, { key: COMPACT_KEY, count_only: true }, { timeoutMs, attemptTimeoutMs: Math.max(200, Math.floor(timeoutMs / 3)) });
    } catch (error) {
      throw storageErrorOf(error, 'health check');
    }
  }

  async stats(): Promise<StorageStats[]> {
    this.assertOpen();
    // One member's database: every member holds the same data (Kubernetes reads the first that answers).
    for (let i = 0; i < this.client.endpoints.length; i++) {
      try {
        const status = await this.client.callMember(i, ETCD.status, {}, 2_000);
        return [{ sizeBytes: int64Number(status.dbSize), clusterId: BigInt(uint64Text(status.header?.cluster_id)).toString(16) }];
      } catch {
        // the next member
      }
    }
    throw new StorageError('Unavailable', 'no etcd member answered a status request');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.compactionTimer !== undefined) clearInterval(this.compactionTimer);
    for (const channel of [...this.channels]) channel.fail(StorageError.closed());
    for (const stream of this.catchUps) stream.close();
    this.waiter.notify();
    const feedDone = this.feed.close();
    this.client.close();
    await feedDone;
  }

  /**
   * Kubernetes' compactor step: advance the compaction key's version by compare-and-swap; the one
   * API server whose swap succeeds compacts to the revision it saw one interval ago. The others
   * learn the key's version and the current revision, and compact next time if they win then.
   */
  private async onCompactionTick(): Promise<void> {
    if (this.closed) return;
    try {
      const response = await this.client.call(
        ETCD.txn,
        {
          compare: [{ result: CompareResult.EQUAL, target: CompareTarget.VERSION, key: COMPACT_KEY, version: this.compactTime }],
          success: [{ request_put: { key: COMPACT_KEY, value: Buffer.from(String(this.compactNext)) } }],
          failure: [{ request_range: { key: COMPACT_KEY } }],
        },
        { write: true },
      );
      const current = headerRevision(response.header);
      if (!response.succeeded) {
        this.compactTime = int64Number(response.responses?.[0]?.response_range?.kvs?.[0]?.version);
        this.compactNext = current;
        return;
      }
      this.compactTime += 1;
      const target = this.compactNext;
      this.compactNext = current;
      if (target > 0) await this.compactTo(target);
    } catch (error) {
      if (!this.closed) process.emitWarning(`store3 compaction failed: ${storageErrorOf(error, 'compaction').message}`);
    }
  }

  private async compactTo(revision: number): Promise<void> {
    try {
      await this.client.call(ETCD.compact, { revision }, { write: true });
    } catch (error) {
      // Compacted already (by another API server): that is what was asked.
      if (!/required revision has been compacted/.test(grpcFailure(error)?.details ?? '')) throw storageErrorOf(error, 'compaction');
    }
    if (revision > this.compacted) this.compacted = revision;
  }

  // ---- helpers ----

  private async read(key: string): Promise<Current | undefined> {
    this.assertOpen();
    let response;
    try {
      response = await this.client.call(ETCD.range, { key: Buffer.from(key) });
    } catch (error) {
      throw storageErrorOf(error, 'read');
    }
    const kv = response.kvs?.[0];
    return kv === undefined ? undefined : { value: Buffer.from(kv.value ?? []), modRevision: int64Number(kv.mod_revision) };
  }

  private async txn(compare: Compare[], success: RequestOp[], failure: RequestOp[], what: string): Promise<TxnResponse> {
    try {
      return await this.client.call(ETCD.txn, { compare, success, failure }, { write: true });
    } catch (error) {
      if (this.closed) throw StorageError.closed();
      throw storageErrorOf(error, what);
    }
  }

  /** A range that failed: Expired for a compacted revision, TooLargeResourceVersion for a future one. */
  private async readFailure(error: unknown, revision: number, isContinue: boolean, what: string): Promise<StorageError> {
    const details = grpcFailure(error)?.details ?? '';
    if (/required revision has been compacted/.test(details)) {
      if (isContinue) return StorageError.continueExpired();
      const compacted = await this.compactedRevision().catch(() => this.compacted);
      return StorageError.expired(revision, Math.max(compacted, revision + 1));
    }
    if (/required revision is a future revision/.test(details)) return StorageError.tooLarge(revision, await this.currentRevision().catch(() => 0));
    return storageErrorOf(error, what);
  }

  private async leaseFor(ttlSeconds: number | undefined): Promise<string | undefined> {
    if (ttlSeconds === undefined || ttlSeconds <= 0) return undefined;
    try {
      return await this.leases.leaseFor(ttlSeconds);
    } catch (error) {
      throw storageErrorOf(error, 'lease grant');
    }
  }

  /** Waits until the store has reached `revision` (TooLargeResourceVersion after the wait). */
  private async reach(revision: number | undefined): Promise<void> {
    this.assertOpen();
    if (revision === undefined || revision <= this.feed.cursor) return;
    await this.waiter.waitFor(revision, this.tooLargeWaitMs, async () => {
      this.assertOpen();
      return this.feed.cursor >= revision ? this.feed.cursor : await this.currentRevision();
    });
  }

  private encode(key: string, object: StoredObject): Buffer {
    return this.codec.encode(key, encodeObjectForWrite(key, object), object);
  }

  private decode<T extends StoredObject>(key: string, value: Buffer, revision: number): T {
    const object = this.codec.decode(key, value) as T;
    (object.metadata ??= {}).resourceVersion = String(revision);
    return object;
  }

  private decodeKv<T extends StoredObject>(kv: EtcdKeyValue): T {
    return this.decode<T>(Buffer.from(kv.key).toString('utf8'), Buffer.from(kv.value ?? []), int64Number(kv.mod_revision));
  }

  private assertOpen(): void {
    if (this.closed) throw StorageError.closed();
  }
}

function modRevision(key: string, result: number, revision: number): Compare {
  return { result, target: CompareTarget.MOD, key: Buffer.from(key), mod_revision: revision };
}

/** etcd's range of every key starting with `prefix`: the prefix with its last byte incremented. */
export function prefixRange(prefix: string): { key: Buffer; rangeEnd: Buffer } {
  const key = Buffer.from(prefix, 'utf8');
  if (key.length === 0) return { key: Buffer.from([0]), rangeEnd: Buffer.from([0]) };
  const end = Buffer.from(key);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] < 0xff) {
      end[i]++;
      return { key, rangeEnd: end.subarray(0, i + 1) };
    }
  }
  return { key, rangeEnd: Buffer.from([0]) };
}
