import { newContinueExpired, newTooOldResourceVersion } from '@svc/machinery';
import type { KubeObject } from '../kube-object';
import type {
  ListerWatcher,
  ListerWatcherEvent,
  ListerWatcherListOptions,
  ListerWatcherListResult,
  ListerWatcherWatchOptions,
  WatchStream,
} from '../lister-watcher';
import { metaNamespaceKey } from '../object-key';

type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

interface Change<T> {
  revision: number;
  type: ChangeType;
  object: T;
}

/** The error a refused or reset connection gives (what a client surfaces, not a Status). */
export class FakeConnectionError extends Error {
  override readonly name = 'FakeConnectionError';
  readonly code = 'ECONNREFUSED';
}

export interface FakeWatchFilter {
  /** Only this namespace (all when unset). */
  namespace?: string;
}

export interface FakeResourceServerOptions {
  /**
   * How a watch from a compacted version fails: `'status'` rejects the watch call with a 410
   * StatusError (an HTTP 410), `'event'` opens the stream and sends an ERROR event carrying the 410
   * Status, as a Kubernetes API server does. Default `'event'`.
   */
  goneAs?: 'status' | 'event';
}

/** A pushed-into async iterable: one per open watch. */
class FakeWatchStream<T> implements WatchStream<T> {
  private readonly queue: ListerWatcherEvent<T>[] = [];
  private waiting: { resolve(r: IteratorResult<ListerWatcherEvent<T>>): void; reject(e: unknown): void } | undefined;
  private ended = false;
  private failure: unknown;
  /** A stalled stream looks open but delivers nothing and ignores stop(): a half-open connection. */
  stalled = false;
  stopped = false;

  constructor(
    readonly options: ListerWatcherWatchOptions,
    readonly filter: FakeWatchFilter,
    private readonly onClose: (stream: FakeWatchStream<T>) => void,
  ) {}

  push(event: ListerWatcherEvent<T>): void {
    if (this.ended || this.stalled) return;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = undefined;
      w.resolve({ value: event, done: false });
    } else {
      this.queue.push(event);
    }
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.onClose(this);
    if (this.waiting && !this.stalled) {
      const w = this.waiting;
      this.waiting = undefined;
      w.resolve({ value: undefined, done: true });
    }
  }

  fail(error: unknown): void {
    if (this.ended) return;
    this.failure = error;
    this.ended = true;
    this.onClose(this);
    if (this.waiting && !this.stalled) {
      const w = this.waiting;
      this.waiting = undefined;
      w.reject(error);
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.stalled) return;
    this.end();
  }

  [Symbol.asyncIterator](): AsyncIterator<ListerWatcherEvent<T>> {
    return {
      next: () => {
        if (this.queue.length > 0 && !this.stalled) return Promise.resolve({ value: this.queue.shift()!, done: false });
        if (this.ended && !this.stalled) {
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the scripted failure is handed on as given
          return this.failure !== undefined ? Promise.reject(this.failure) : Promise.resolve({ value: undefined, done: true });
        }
        return new Promise((resolve, reject) => {
          this.waiting = { resolve, reject };
        });
      },
      return: () => {
        this.stop();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}

const clone = <V>(value: V): V => structuredClone(value);

/**
 * An in-memory API server for one resource, for tests at the network edge: numbered revisions, a
 * change history that can be compacted (then watches and lists from older versions get 410), paged
 * lists on consistent snapshots with expirable continue tokens, bookmarks, watch streams that can be
 * ended, broken or stalled, and outages. Objects handed out are copies.
 */
export class FakeResourceServer<T extends KubeObject> {
  private revision = 0;
  /** Changes at revisions <= this are compacted: watching from an older version is 410. */
  private compactedThrough = 0;
  private readonly objects = new Map<string, T>();
  private history: Change<T>[] = [];
  private readonly streams = new Set<FakeWatchStream<T>>();
  private readonly snapshots = new Map<string, { revision: number; items: T[] }>();
  private nextToken = 0;
  private down = false;
  /** Every list and watch request, in order. */
  readonly listRequests: ListerWatcherListOptions[] = [];
  readonly watchRequests: ListerWatcherWatchOptions[] = [];

  constructor(private readonly options: FakeResourceServerOptions = {}) {}

  /** The current revision, as a resourceVersion. */
  get resourceVersion(): string {
    return String(this.revision);
  }

  /** Open watch streams (stalled ones included). */
  get openWatches(): number {
    return this.streams.size;
  }

  create(object: T): T {
    const key = metaNamespaceKey(object);
    if (this.objects.has(key)) throw new Error(`${key} already exists`);
    return this.write('ADDED', key, object);
  }

  update(object: T): T {
    const key = metaNamespaceKey(object);
    if (!this.objects.has(key)) throw new Error(`${key} not found`);
    return this.write('MODIFIED', key, object);
  }

  /** Deletes by key (`namespace/name` or `name`); the DELETED event carries the deletion's revision. */
  delete(key: string): T {
    const current = this.objects.get(key);
    if (current === undefined) throw new Error(`${key} not found`);
    return this.write('DELETED', key, current);
  }

  get(key: string): T | undefined {
    const obj = this.objects.get(key);
    return obj === undefined ? undefined : clone(obj);
  }

  /** The current objects, sorted by key. */
  items(filter: FakeWatchFilter = {}): T[] {
    return [...this.objects.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, obj]) => obj)
      .filter((obj) => matches(obj, filter))
      .map(clone);
  }

  /** Forgets all history up to now: only watches from the current version (or newer) succeed. */
  compact(): void {
    this.compactedThrough = this.revision;
    this.history = [];
  }

  /** Sends a BOOKMARK at the current revision on every open stream that asked for bookmarks. */
  bookmark(): void {
    for (const stream of [...this.streams]) {
      if (stream.options.allowWatchBookmarks) stream.push(bookmarkEvent<T>(this.revision));
    }
  }

  /** Ends every open stream normally (the server's watch timeout). */
  endWatches(): void {
    for (const stream of [...this.streams]) stream.end();
  }

  /** Breaks every open stream with a connection error. */
  breakWatches(error: unknown = new FakeConnectionError('connection reset')): void {
    for (const stream of [...this.streams]) stream.fail(error);
  }

  /** Every open stream stops delivering and ignores stop(), as over a half-open connection. */
  stallWatches(): void {
    for (const stream of [...this.streams]) stream.stalled = true;
  }

  /** Makes every later request fail to connect (down) or succeed again (up). */
  setDown(down: boolean): void {
    this.down = down;
    if (down) this.breakWatches();
  }

  /** Continue tokens handed out so far become invalid (410 on use), as after their lifetime. */
  expireContinueTokens(): void {
    this.snapshots.clear();
  }

  /** A ListerWatcher over this server (optionally one namespace). */
  listerWatcher(filter: FakeWatchFilter = {}): ListerWatcher<T> {
    return {
      list: (options) => this.list(options, filter),
      watch: (options) => this.watch(options, filter),
    };
  }

  private write(type: ChangeType, key: string, object: T): T {
    this.revision++;
    const stored = clone(object);
    stored.metadata = { ...stored.metadata, resourceVersion: String(this.revision) };
    if (type === 'DELETED') this.objects.delete(key);
    else this.objects.set(key, stored);
    const change: Change<T> = { revision: this.revision, type, object: stored };
    this.history.push(change);
    for (const stream of [...this.streams]) {
      if (matches(stored, stream.filter)) stream.push({ type, object: clone(stored) });
    }
    return clone(stored);
  }

  private async list(options: ListerWatcherListOptions, filter: FakeWatchFilter): Promise<ListerWatcherListResult<T>> {
    this.listRequests.push({ ...options, signal: undefined });
    await Promise.resolve();
    if (this.down) throw new FakeConnectionError('connection refused');
    let snapshot: { revision: number; items: T[] };
    let offset = 0;
    if (options.continue !== undefined) {
      const [id, start] = options.continue.split(':');
      const found = this.snapshots.get(id);
      if (found === undefined) throw newContinueExpired();
      snapshot = found;
      offset = Number(start);
    } else {
      snapshot = { revision: this.revision, items: this.items(filter) };
    }
    const limit = options.limit && options.limit > 0 ? options.limit : snapshot.items.length;
    const page = snapshot.items.slice(offset, offset + limit);
    let token = '';
    if (offset + limit < snapshot.items.length) {
      let id = options.continue?.split(':')[0];
      if (id === undefined) {
        id = String(++this.nextToken);
        this.snapshots.set(id, snapshot);
      }
      token = `${id}:${offset + limit}`;
    }
    return { items: page.map(clone), metadata: { resourceVersion: String(snapshot.revision), continue: token } };
  }

  private async watch(options: ListerWatcherWatchOptions, filter: FakeWatchFilter): Promise<WatchStream<T>> {
    this.watchRequests.push({ ...options, signal: undefined });
    await Promise.resolve();
    if (this.down) throw new FakeConnectionError('connection refused');
    const from = Number(options.resourceVersion || this.revision);
    const gone = from < this.compactedThrough;
    if (gone && (this.options.goneAs ?? 'event') === 'status') throw newTooOldResourceVersion(from, this.compactedThrough);
    const stream = new FakeWatchStream<T>(options, filter, (s) => this.streams.delete(s));
    this.streams.add(stream);
    options.signal?.addEventListener('abort', () => stream.stop(), { once: true });
    if (gone) {
      stream.push({ type: 'ERROR', object: newTooOldResourceVersion(from, this.compactedThrough).status });
      stream.end();
      return stream;
    }
    if (!options.resourceVersion) {
      // "Get state and start at most recent": the current objects as synthetic ADDED events.
      for (const object of this.items(filter)) stream.push({ type: 'ADDED', object });
      return stream;
    }
    for (const change of this.history) {
      if (change.revision > from && matches(change.object, filter)) stream.push({ type: change.type, object: clone(change.object) });
    }
    return stream;
  }
}

function matches(obj: KubeObject, filter: FakeWatchFilter): boolean {
  return !filter.namespace || obj.metadata?.namespace === filter.namespace;
}

function bookmarkEvent<T>(revision: number): ListerWatcherEvent<T> {
  return { type: 'BOOKMARK', object: { metadata: { resourceVersion: String(revision) } } as T };
}
