/**
 * # The Storage contract
 *
 * A `Storage` is a revisioned key-value store of JSON objects with watch. Every backend (the embedded
 * SQLite store, MongoDB) passes the one contract suite in `testing/contract-suite.ts`; the API server
 * never knows which backend it runs on.
 *
 * ## Keys and values
 * Keys are strings built by the API server with {@link objectStorageKey} / {@link prefixKey} from
 * `--store-prefix`; the store treats them as opaque and orders them bytewise. Values are plain JSON
 * objects (no `Date`, no `undefined`, no functions) with an optional `metadata`; they are stored as JSON
 * text in both backends (MongoDB field names may not safely hold every key found in objects, such as the
 * `.` keys of managedFields). Objects returned by `create`/`get`/`update`/`list` are fresh copies the
 * caller may change; objects carried by watch events are shared by every watcher and must be treated as
 * read-only. The caller's input object is never changed.
 *
 * ## Revisions
 * One counter per store, strictly increasing, a JavaScript integer (exact up to 2^53). A fresh store is
 * at revision 1 and its first write takes revision 2, so that no object or list ever carries
 * resourceVersion "0", which the HTTP interface reserves for "any version". Every create, update and
 * delete takes the next revision; within one store revisions have no gaps. An object's
 * `metadata.resourceVersion` is the decimal text of the revision of its last write; the store sets it on
 * everything it returns and ignores whatever the caller put there.
 *
 * ## Operations and their guarantees
 * - `create` fails with KeyExists if the key is present. `get` fails with KeyNotFound if absent.
 * - `update` and `delete` take meta/v1 {@link Preconditions}: a resourceVersion that must equal the stored one
 *   (else Conflict) and a uid that must equal `metadata.uid` (else InvalidPrecondition). Both fail with
 *   KeyNotFound if the key is absent. `delete` returns the last state with the deletion revision as its
 *   resourceVersion, exactly like the DELETED watch event. `delete` with a `validate` callback reads the
 *   current object, validates it, and deletes that very version, retrying if it changed meanwhile.
 * - `guaranteedUpdate` is Kubernetes' GuaranteedUpdate: read, call `tryUpdate`, write with the read
 *   version as precondition, and on Conflict read again and call `tryUpdate` again, so N concurrent
 *   read-modify-write loops on one key never lose an update. If `tryUpdate` returns an object equal to
 *   the stored one (same JSON without resourceVersion) nothing is written and no revision is taken.
 * - `list` returns the objects under a prefix in key order and the revision they were read at.
 *   Without a revision it reads the latest state. With `match: 'NotOlderThan'` (the default when a
 *   revision is given) it reads the latest state once the store has reached that revision. With
 *   `match: 'Exact'` it reads the state at exactly that revision. With `limit`, a page holds at most
 *   `limit` items and a `continue` token while more remain; every page of one list is read at the
 *   revision of the first page, so all pages form one consistent snapshot whatever writes go on.
 * - `watch` delivers every change under a prefix with a revision greater than the start revision,
 *   exactly once, in revision order, with no gap; with `initialEvents` it first delivers the state at the
 *   start revision as synthetic ADDED events followed by one PROGRESS event marked `initialEventsEnd`.
 *   PROGRESS events (periodic with `progressIntervalMs`, or on `requestProgress()`) carry a revision up to
 *   which every change under the prefix has been delivered: they are the source of BOOKMARK events.
 *
 * ## History, Expired and too-large revisions
 * Changes are kept for at least the compaction interval (`--store-compaction-interval`, default 5m0s;
 * 0 keeps everything): every interval the store compacts to the revision it had one interval earlier.
 * After compaction to C, the state at any revision R >= C is exact (for every key the newest version at
 * or below C is kept), and a watch from R >= C misses nothing. An exact list, a continue token or a watch
 * at R < C fails with Expired (HTTP 410). The compacted revision is persisted, so Expired stays exact
 * across restarts. A revision newer than the store's makes `get`, `list` and `watch` wait up to
 * `tooLargeWaitMs` (default 3 s, like the watch cache) for the store to reach it, then fail with
 * TooLargeResourceVersion (message "Too large resource version").
 *
 * ## Why MongoDB can honour all of it (design decisions)
 * MongoDB cannot read at an old revision except by snapshot reads within
 * `minSnapshotHistoryWindowInSeconds` (300 s), and change streams can only resume while their point is
 * in the oplog. Neither is relied on for history. Both backends keep history the way kine does over SQL:
 * a log of changes keyed by revision (key, value, create/prev revision, created and deleted flags),
 * written in the same transaction as the current-state row and the revision counter. Hence:
 * - exact reads at R and paging snapshots are answered from the log ("newest row per key with revision
 *   <= R"), valid for any R not older than the compacted revision, so the storage layer itself gives
 *   consistent pages for the continue token's lifetime (the compaction interval, 5 min by default,
 *   which is also the token lifetime the HTTP interface promises). The API server's watch cache may
 *   still serve lists from memory for speed, but it is not needed for correctness;
 * - a watch from R reads the log after R and then follows live changes (in MongoDB: one change stream on
 *   the log per store, fanned out in memory, resumed by resume token, and checked against the log for
 *   gaps), so "from revision R" never depends on the oplog window;
 * - revision order equals the order watchers see: in SQLite there is one writer process, and watchers are
 *   fed synchronously right after each commit; in MongoDB every write transaction increments one counter
 *   document, so transactions serialize on it and commit order equals revision order (proof in
 *   `mongodb/mongodb-storage.ts`).
 * MongoDB snapshot reads are used only within one operation (a few reads at one point in time), never
 * across requests, so the 300 s window never matters.
 *
 * ## Watch delivery and backpressure
 * A watcher is an async iterable. Each consumer pulls events; a watcher buffers at most
 * `bufferLimit` undelivered live events (default 10,000). The initial state is read once, like a list;
 * history after the start revision is read from the log page by page, only as the consumer pulls; neither
 * counts toward the limit, and live events are not buffered at all until history has been read up to
 * the present. When the buffer is full the watch
 * is cut off: the consumer first receives every event already buffered, then the iteration throws a
 * StorageError WatchOverflow, which the API server turns into a clean end of the watch stream; the client
 * watches again from the last revision it saw. Other terminal errors (Expired while catching up, Closed,
 * Unavailable) are thrown the same way. `stop()` (or leaving a `for await` loop) ends the iteration
 * without error. Starting a watch at a revision already known to be compacted, or too large, rejects the
 * `watch()` promise itself, so the API server can answer 410/504 before it starts streaming.
 */
import type { Preconditions } from '@svc/machinery';
import type { StorageError } from './storage-error';

/** The metadata fields the store reads or sets; other fields are kept untouched. */
export interface StoredMetadata {
  uid?: string;
  resourceVersion?: string;
}

/** Any JSON object with a Kubernetes-style `metadata` field. */
export interface StoredObject {
  metadata?: StoredMetadata;
}

export interface GetOptions {
  /** "Not older than": wait (briefly) until the store has reached this revision before reading. */
  minRevision?: number;
}

/**
 * Keys with a time to live: a write that carries `ttlSeconds` makes the key expire that many seconds
 * after it (deleted by the store, with a DELETED event and a revision like any delete); a later write
 * without it keeps the key until deleted. Stores may keep a key somewhat longer than asked (store3
 * shares etcd leases, as Kubernetes does, for up to `--lease-reuse-duration-seconds` more; the
 * others sweep once a second), never shorter.
 */
export interface StorageWriteOptions {
  ttlSeconds?: number;
}

export type CreateOptions = StorageWriteOptions;

export interface UpdateOptions extends StorageWriteOptions {
  preconditions?: Preconditions;
}

/**
 * Builds the new state from the current one. Throwing aborts the update with that error. Receives
 * `null` only with `ignoreNotFound: true` when the key is absent; the result is then created.
 */
export type TryUpdate<T extends StoredObject> = (current: T | null) => T | Promise<T>;

export interface GuaranteedUpdateOptions extends StorageWriteOptions {
  /** Checked against the current object on every attempt; a mismatch fails without retry. */
  preconditions?: Preconditions;
  /** When the key is absent, call `tryUpdate(null)` and create the result instead of failing. */
  ignoreNotFound?: boolean;
}

export interface StorageDeleteOptions<T extends StoredObject> {
  preconditions?: Preconditions;
  /**
   * Called with the current object; throwing aborts the delete. The very version validated is the one
   * deleted: if the object changes between validation and delete, it is read and validated again
   * (unless a resourceVersion precondition was given, which then fails with Conflict).
   */
  validate?: (current: T) => void | Promise<void>;
}

export type ListMatch = 'Exact' | 'NotOlderThan';

export interface ListOptions {
  /** Revision to read at; see `match`. Ignored when `continue` is given. */
  revision?: number;
  /** How `revision` is interpreted; defaults to 'NotOlderThan'. */
  match?: ListMatch;
  /** Maximum items in this page; unset or 0 means all. */
  limit?: number;
  /** Token from the previous page; the page is read at that page's revision. */
  continue?: string;
}

export interface ListResult<T extends StoredObject> {
  items: T[];
  /** The revision the whole list (every page of it) was read at. */
  revision: number;
  /** Present when more items remain; pass it back as `continue`. */
  continue?: string;
  /** Items after this page, when the backend can count them cheaply. */
  remainingItemCount?: number;
}

export interface StorageWatchOptions {
  /**
   * Deliver changes with a revision greater than this one. Unset: start at the current revision.
   * Older than the compacted revision: Expired. Newer than the store: wait briefly, then
   * TooLargeResourceVersion.
   */
  revision?: number;
  /** First deliver the state at the start revision as ADDED events, then PROGRESS with initialEventsEnd. */
  initialEvents?: boolean;
  /** Emit a PROGRESS event after this many milliseconds without any event. Unset: never on a timer. */
  progressIntervalMs?: number;
  /** Undelivered live events allowed before the watch ends with WatchOverflow. */
  bufferLimit?: number;
}

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface ChangeEvent<T extends StoredObject> {
  type: ChangeType;
  key: string;
  /** The new state; for DELETED the last state, with the deletion revision as its resourceVersion. */
  object: T;
  /** The state before this change, for MODIFIED and DELETED. */
  prevObject?: T;
  /** The revision of the change; for synthetic initial ADDED events the object's own revision. */
  revision: number;
}

export interface ProgressEvent {
  type: 'PROGRESS';
  /** Every change under the prefix with a revision up to this one has been delivered. */
  revision: number;
  /** Set on the one PROGRESS event that follows the initial state. */
  initialEventsEnd?: boolean;
}

export type StorageWatchEvent<T extends StoredObject> = ChangeEvent<T> | ProgressEvent;

export interface Watcher<T extends StoredObject> extends AsyncIterable<StorageWatchEvent<T>> {
  /** Ends the watch: iteration finishes without error and buffered events are dropped. Idempotent. */
  stop(): void;
  /** Ask for a PROGRESS event as soon as every change up to the store's current revision is queued. */
  requestProgress(): void;
  /** Resolves when the watch has ended, with the terminal error if there was one. */
  readonly ended: Promise<StorageError | undefined>;
}

export type StorageBackend = 'embedded' | 'mongodb' | 'store3';

/** What a store tells about itself for metrics. */
export interface StorageStats {
  /** Bytes the store's database takes (etcd's db size, the SQLite file, MongoDB's data and indexes). */
  sizeBytes: number;
  /** Which store this is: etcd's cluster id (hex), `embedded`, or MongoDB's database name. */
  clusterId: string;
}

export interface Storage {
  readonly backend: StorageBackend;

  /** Stores a new object; KeyExists if the key is present. Returns the stored object. */
  create<T extends StoredObject>(key: string, object: T, options?: CreateOptions): Promise<T>;

  /** The current object; KeyNotFound if absent. */
  get<T extends StoredObject>(key: string, options?: GetOptions): Promise<T>;

  /** Replaces an existing object; KeyNotFound, Conflict or InvalidPrecondition on failure. */
  update<T extends StoredObject>(key: string, object: T, options?: UpdateOptions): Promise<T>;

  /** Read-modify-write that retries on conflict; see the contract above. */
  guaranteedUpdate<T extends StoredObject>(key: string, tryUpdate: TryUpdate<T>, options?: GuaranteedUpdateOptions): Promise<T>;

  /** Deletes an object; returns its last state with the deletion revision as resourceVersion. */
  delete<T extends StoredObject>(key: string, options?: StorageDeleteOptions<T>): Promise<T>;

  /** Objects under a prefix, in key order, with the revision they were read at. */
  list<T extends StoredObject>(prefix: string, options?: ListOptions): Promise<ListResult<T>>;

  /** Number of objects under a prefix now (for the object count metric). */
  count(prefix: string): Promise<number>;

  /** Changes under a prefix; see the contract above. */
  watch<T extends StoredObject>(prefix: string, options?: StorageWatchOptions): Promise<Watcher<T>>;

  /**
   * The store's latest revision. `keyPrefix` names whose revision when several stores stand behind
   * this one (`--store-servers-overrides`: each store counts its own revisions); one store ignores it.
   */
  currentRevision(keyPrefix?: string): Promise<number>;

  /** The oldest revision still readable exactly (0 when nothing was compacted); `keyPrefix` as above. */
  compactedRevision(keyPrefix?: string): Promise<number>;

  /**
   * Drops history up to `revision` (clamped to the current revision). Runs on its own every
   * compaction interval; exposed for operators and tests.
   */
  compact(revision: number): Promise<void>;

  /** Resolves when the backend answers within `timeoutMs`; else rejects with Unavailable. */
  healthCheck(timeoutMs?: number): Promise<void>;

  /** Size and identity of each store behind this one (one, or one per override), for `--store-db-metric-poll-interval`. */
  stats(): Promise<StorageStats[]>;

  /** Ends every watch with Closed, releases files, locks and connections. Idempotent. */
  close(): Promise<void>;
}
