/** Options of one list call the reflector makes (selectors are bound into the ListerWatcher). */
export interface ListerWatcherListOptions {
  /** Unset asks for the most recent, consistent state. */
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  limit?: number;
  continue?: string;
  signal?: AbortSignal;
}

/** What a list returns: the items and the version the collection was read at. */
export interface ListerWatcherListResult<T> {
  items: T[];
  metadata: { resourceVersion?: string; continue?: string };
}

/** Options of one watch call the reflector makes. */
export interface ListerWatcherWatchOptions {
  /** Only changes after this version are delivered. */
  resourceVersion: string;
  allowWatchBookmarks: boolean;
  /** The server ends the stream after this long; the reflector then watches again. */
  timeoutSeconds: number;
  signal?: AbortSignal;
}

/** A change to the watched collection. */
export type ListerWatcherEvent<T> =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: T }
  /** Only `object.metadata.resourceVersion` is meaningful. */
  | { type: 'BOOKMARK'; object: T }
  /** `object` is a Status (a 410 here means the version is gone: relist). */
  | { type: 'ERROR'; object: unknown };

/**
 * An open watch: iterate it for events; the iteration ends when the server closes the stream and
 * throws when the connection fails. `stop()` closes it from this side.
 */
export interface WatchStream<T> extends AsyncIterable<ListerWatcherEvent<T>> {
  stop(): void;
  /**
   * Optional: the same events in arrays (each never empty), iterated instead of the stream itself.
   * The reflector prefers it: it applies a whole array in one turn of the event loop, where one by
   * one costs a few promises per event (the client's `Watch` gives one array per chunk read).
   */
  batches?(): AsyncIterable<readonly ListerWatcherEvent<T>[]>;
}

/**
 * The network edge of an informer, as in client-go: list a collection, watch it from a version.
 * Errors are Status-carrying errors (`StatusError` of `@svc/machinery`), 410 when the version asked
 * for is no longer available. `listerWatcherFor` adapts a resource client to this.
 */
export interface ListerWatcher<T> {
  list(options: ListerWatcherListOptions): Promise<ListerWatcherListResult<T>>;
  /** Resolves once the server accepted the watch (or returns the stream right away). */
  watch(options: ListerWatcherWatchOptions): Promise<WatchStream<T>> | WatchStream<T>;
}
