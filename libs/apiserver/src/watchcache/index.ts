// The API server's watch cache: one Cacher per resource over the Storage contract.
export { Cacher, DEFAULT_BACKEND_PROGRESS_INTERVAL_MS, DEFAULT_BOOKMARK_INTERVAL_MS, DEFAULT_CACHE_WAIT_MS, DEFAULT_WATCHER_BUFFER_LIMIT } from './cacher';
export type { CacheListOptions, CacheListResult, CacheReadOptions, CacheSize, CacheWatchOptions, CacherMetrics, CacherOptions } from './cacher';
export type { CacheWatcher } from './cache-watcher';
export { INITIAL_EVENTS_END_ANNOTATION, bookmarkMetadata } from './cache-events';
export type { CacheBookmarkEvent, CacheObjectEvent, CacheWatchEvent } from './cache-events';
export { DEFAULT_EVENT_FRESH_MS, MAX_WINDOW_CAPACITY, MIN_WINDOW_CAPACITY } from './event-window';
export { isWatchCached } from './watch-cache-enabled';
export type { WatchCacheTarget, WatchCacheSettings } from './watch-cache-enabled';
