import type { ChangeType, StoredObject } from '@svc/storage';

/**
 * The annotation the HTTP layer puts on the BOOKMARK that ends the initial events of a watch with
 * `sendInitialEvents=true` (Kubernetes' `k8s.io/initial-events-end`).
 */
export const INITIAL_EVENTS_END_ANNOTATION = 'svc.io/initial-events-end';

/**
 * One change the cache recorded, kept in its event window. `object` and `prevObject` are shared by
 * every reader and watcher and are frozen: never change them.
 */
export interface CacheEntry<T extends StoredObject> {
  type: ChangeType;
  key: string;
  /** The new state; for DELETED the last state carrying the deletion revision. */
  readonly object: T;
  /** The state before the change (MODIFIED and DELETED). */
  readonly prevObject?: T;
  revision: number;
  /** When the cache recorded it (the cacher's clock), for sizing the window. */
  recordedAt: number;
}

/** An object event as a watcher sees it, after its key prefix and filter were applied. */
export interface CacheObjectEvent<T extends StoredObject> {
  type: ChangeType;
  key: string;
  /** Shared and frozen; for DELETED the last state with the deletion revision as resourceVersion. */
  readonly object: T;
  revision: number;
}

/** Every change up to `revision` that this watcher should see has been delivered. */
export interface CacheBookmarkEvent {
  type: 'BOOKMARK';
  revision: number;
  /** Set on the one bookmark that ends the initial events of a `sendInitialEvents` watch. */
  initialEventsEnd?: boolean;
}

export type CacheWatchEvent<T extends StoredObject> = CacheObjectEvent<T> | CacheBookmarkEvent;

/**
 * The `metadata` of the object a BOOKMARK event carries: only the resourceVersion, plus the
 * initial-events-end annotation when it ends the initial events.
 */
export function bookmarkMetadata(event: CacheBookmarkEvent): {
  resourceVersion: string;
  annotations?: Record<string, string>;
} {
  return event.initialEventsEnd
    ? { resourceVersion: String(event.revision), annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } }
    : { resourceVersion: String(event.revision) };
}

/**
 * How one change looks to a watcher with `filter`, as Kubernetes' cacheWatcher decides it: the filter
 * is evaluated on the old and the new state, an object that starts matching arrives as ADDED, one
 * that stops matching as DELETED (carrying its new state), and changes to objects that match neither
 * before nor after are not sent.
 */
export function filteredEvent<T extends StoredObject>(entry: CacheEntry<T>, filter: ((object: T) => boolean) | undefined): CacheObjectEvent<T> | undefined {
  if (filter === undefined) {
    return { type: entry.type, key: entry.key, object: entry.object, revision: entry.revision };
  }
  const nowMatches = entry.type !== 'DELETED' && filter(entry.object);
  const matchedBefore = entry.prevObject !== undefined && filter(entry.prevObject);
  let type: ChangeType;
  if (nowMatches && matchedBefore) type = 'MODIFIED';
  else if (nowMatches) type = 'ADDED';
  else if (matchedBefore) type = 'DELETED';
  else return undefined;
  return { type, key: entry.key, object: entry.object, revision: entry.revision };
}
