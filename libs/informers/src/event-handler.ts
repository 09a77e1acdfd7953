/** Extra facts about an add. */
export interface AddInfo {
  /** The object came with the informer's first list (or the catch-up of a handler added late). */
  isInInitialList: boolean;
}

/** Extra facts about a delete. */
export interface DeleteInfo {
  /**
   * The deletion happened while the watch was down and was found by a relist: `obj` is the last
   * state the cache knew, not the state at deletion (client-go's DeletedFinalStateUnknown).
   */
  finalStateUnknown: boolean;
}

/**
 * Callbacks of one consumer of an informer. Each handler gets its notifications in order, one at a
 * time (a returned promise is awaited before the next), from its own queue, so a slow handler delays
 * only itself. A handler that throws or rejects is logged and keeps receiving notifications.
 */
export interface ResourceEventHandler<T> {
  onAdd?(obj: T, info: AddInfo): void | Promise<void>;
  /** Also called with `oldObj === newObj` on a periodic resync. */
  onUpdate?(oldObj: T, newObj: T): void | Promise<void>;
  onDelete?(obj: T, info: DeleteInfo): void | Promise<void>;
}

/** A handler's place in an informer. */
export interface ResourceEventHandlerRegistration {
  /** True once the handler has been given (and has finished) every object of the informer's initial state. */
  hasSynced(): boolean;
  /** Notifications queued for this handler and not yet handled. */
  pending(): number;
  /** Stops delivery to this handler; queued notifications are dropped. */
  remove(): void;
}
