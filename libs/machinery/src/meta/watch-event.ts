export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** One document of a watch stream; `object` is the kind watched, or a Status for ERROR. */
export interface WatchEvent<T = Record<string, unknown>> {
  type: WatchEventType;
  object: T;
}
