/**
 * One change the cache went through, as handlers are told about it. A relist is turned into the
 * deltas between the cache before and the list (client-go's DeltaFIFO Replace, simplified): objects
 * that vanished while the watch was down come out as `deleted` with `finalStateUnknown`, carrying
 * the last state the cache knew (client-go's DeletedFinalStateUnknown).
 */
export type Delta<T> =
  | { type: 'added'; object: T; isInInitialList: boolean }
  | { type: 'updated'; oldObject: T; object: T }
  | { type: 'deleted'; object: T; finalStateUnknown: boolean }
  /** A periodic resync: the object did not change; handlers see onUpdate(obj, obj). */
  | { type: 'sync'; object: T };
