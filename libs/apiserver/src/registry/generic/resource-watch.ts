import type { ApiObject, KindDefinition } from '@svc/api';
import { isStatusError, type Status, type WatchSemantics } from '@svc/machinery';
import { isStorageError, type ChangeEvent, type Storage, type StorageWatchEvent, type StorageWatchOptions } from '@svc/storage';
import { bookmarkMetadata, DEFAULT_BOOKMARK_INTERVAL_MS, type Cacher, type CacheWatchEvent } from '../../watchcache';
import type { ResourceWatch, ResourceWatchEvent } from '../types';
import type { Selection } from './selection';
import { toStatusError } from './status-mapping';

export interface WatchSource {
  def: KindDefinition;
  storage: Storage;
  /** The resource's watch cache; undefined watches storage directly. */
  cacher: Cacher<ApiObject> | undefined;
  /** Key prefix: the resource's, or one namespace's. */
  prefix: string;
  selection: Selection;
  semantics: WatchSemantics;
  /** The request's own sendInitialEvents, which the cache interprets itself. */
  sendInitialEvents: boolean | undefined;
  allowBookmarks: boolean;
  deadline?: number;
  /** Gives an object the version, apiVersion and kind of the endpoint (a copy when they differ); a CRD's conversion webhook may fail it. */
  typed: (object: ApiObject) => ApiObject | Promise<ApiObject>;
  /** `typed` never returns a promise (no conversion webhook): events can then be delivered synchronously. */
  typedIsSync?: boolean;
}

/**
 * Opens a watch through the resource's cache, or straight on storage when the resource is not cached.
 * A start too old for the history (410) or a version the store does not reach (504) is not thrown: the
 * watch then carries one ERROR event with that Status and ends, as Kubernetes answers watches. Other
 * terminal failures of a running watch (a consumer cut off for falling behind, a cache that lost its
 * backend) end it cleanly, and the client watches again from the last version it saw.
 */
export async function openWatch(source: WatchSource): Promise<ResourceWatch> {
  try {
    return source.cacher !== undefined ? await watchCache(source, source.cacher) : await watchStorage(source);
  } catch (error) {
    if (isStorageError(error, 'Expired') || isStorageError(error, 'TooLargeResourceVersion')) return errorWatch(statusOf(error, source));
    throw error;
  }
}

async function watchCache(source: WatchSource, cacher: Cacher<ApiObject>): Promise<ResourceWatch> {
  const { semantics } = source;
  const watcher = await cacher.watch({
    keyPrefix: source.prefix,
    fromRevision: semantics.mode === 'MostRecent' ? undefined : semantics.mode === 'Any' ? 0 : semantics.resourceVersion,
    sendInitialEvents: source.sendInitialEvents,
    filter: source.selection.filter,
    allowBookmarks: source.allowBookmarks,
    deadline: source.deadline,
  });
  const bookmark = bookmarkObject(source.def);
  const map = (event: CacheWatchEvent<ApiObject>): Mapped =>
    event.type === 'BOOKMARK' ? { type: 'BOOKMARK', object: bookmark(bookmarkMetadata(event)) } : withObject(event.type, source.typed(event.object));
  const watch = adapt(
    watcher,
    (event) => map(event),
    () => watcher.stop(),
    source,
  );
  if (source.typedIsSync === true) {
    // `map` is synchronous here: `typed` is, and bookmarks are made on the spot.
    watch.deliverDirectly = (consumer) => watcher.deliverDirectly((event) => consumer(map(event) as ResourceWatchEvent));
  }
  return watch;
}

async function watchStorage(source: WatchSource): Promise<ResourceWatch> {
  const { semantics } = source;
  const options: StorageWatchOptions = { initialEvents: semantics.initialEvents };
  if (semantics.mode === 'Exact' || semantics.mode === 'NotOlderThan') options.revision = semantics.resourceVersion;
  if (source.allowBookmarks) options.progressIntervalMs = DEFAULT_BOOKMARK_INTERVAL_MS;
  const watcher = await source.storage.watch<ApiObject>(source.prefix, options);
  const filter = source.selection.filter;
  const bookmark = bookmarkObject(source.def);
  const endBookmark = semantics.initialEventsEndBookmark && source.allowBookmarks;
  const map = (event: StorageWatchEvent<ApiObject>): Mapped => {
    if (event.type === 'PROGRESS') {
      if (event.initialEventsEnd) {
        return endBookmark
          ? { type: 'BOOKMARK', object: bookmark(bookmarkMetadata({ type: 'BOOKMARK', revision: event.revision, initialEventsEnd: true })) }
          : undefined;
      }
      return source.allowBookmarks ? { type: 'BOOKMARK', object: bookmark({ resourceVersion: String(event.revision) }) } : undefined;
    }
    const type = filter === undefined ? event.type : filteredType(event, filter);
    return type === undefined ? undefined : withObject(type, source.typed(event.object));
  };
  return adapt(watcher, map, () => watcher.stop(), source);
}

/**
 * How a change looks through a selector (Kubernetes' rule): an object that starts matching arrives as
 * ADDED, one that stops matching as DELETED, and changes matching neither before nor after are dropped.
 */
function filteredType(event: ChangeEvent<ApiObject>, filter: (object: ApiObject) => boolean): ChangeEvent<ApiObject>['type'] | undefined {
  if (event.type === 'DELETED') return filter(event.prevObject ?? event.object) ? 'DELETED' : undefined;
  const now = filter(event.object);
  const before = event.type === 'MODIFIED' && event.prevObject !== undefined && filter(event.prevObject);
  if (now && before) return 'MODIFIED';
  if (now) return 'ADDED';
  if (before) return 'DELETED';
  return undefined;
}

/** A watch event as the HTTP layer sends it, none (filtered out), or, for a converted kind, the promise of one. */
type Mapped = ResourceWatchEvent | undefined | Promise<ResourceWatchEvent | undefined>;

/**
 * The watch as the HTTP layer reads it: `map` applied to each event. A plain iterator rather than an
 * async generator, since every hop costs once per event and watcher.
 */
function adapt<E>(events: AsyncIterable<E>, map: (event: E) => Mapped, stop: () => void, source: WatchSource): ResourceWatch {
  const iterate = (): AsyncIterator<ResourceWatchEvent> => {
    const inner = events[Symbol.asyncIterator]();
    let over = false;
    const finish = (): IteratorReturnResult<undefined> => {
      if (!over) {
        over = true;
        stop();
      }
      return { done: true, value: undefined };
    };
    return {
      async next(): Promise<IteratorResult<ResourceWatchEvent>> {
        while (!over) {
          let result: IteratorResult<E>;
          try {
            result = await inner.next();
          } catch (error) {
            finish();
            // History lost while catching up is the client's to know (it lists again); anything else ends quietly.
            if (isStorageError(error, 'Expired')) return { done: false, value: { type: 'ERROR', object: statusOf(error, source) } };
            break;
          }
          if (result.done) break;
          let out: ResourceWatchEvent | undefined;
          try {
            // Only a conversion webhook makes the mapping asynchronous; other kinds skip the promise hop.
            const mapped = map(result.value);
            out = mapped instanceof Promise ? await mapped : mapped;
          } catch (error) {
            finish();
            // An object the conversion webhook could not convert ends the watch with that error, as Kubernetes does.
            if (isStatusError(error)) return { done: false, value: { type: 'ERROR', object: error.status } };
            break;
          }
          if (out !== undefined) return { done: false, value: out };
        }
        return finish();
      },
      async return(): Promise<IteratorResult<ResourceWatchEvent>> {
        await inner.return?.();
        return finish();
      },
    };
  };
  return { [Symbol.asyncIterator]: iterate, stop };
}

function withObject(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: ApiObject | Promise<ApiObject>): Mapped {
  return object instanceof Promise ? object.then((o) => ({ type, object: o })) : { type, object };
}

function errorWatch(status: Status): ResourceWatch {
  let stopped = false;
  return {
    async *[Symbol.asyncIterator]() {
      if (!stopped) yield { type: 'ERROR', object: status };
    },
    stop: () => {
      stopped = true;
    },
  };
}

function statusOf(error: unknown, source: WatchSource): Status {
  return toStatusError(error, { group: source.def.group, resource: source.def.resource }).status;
}

/** A BOOKMARK carries an object of the watched kind with only its resourceVersion (and annotations). */
function bookmarkObject(def: KindDefinition): (metadata: ApiObject['metadata']) => ApiObject {
  const apiVersion = def.group === '' ? def.version : `${def.group}/${def.version}`;
  return (metadata) => ({ kind: def.kind, apiVersion, metadata });
}
