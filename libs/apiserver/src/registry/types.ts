import type { ApiObject, PropagationPolicy } from '@svc/api';
import type { Status, UserInfo } from '@svc/machinery';
import type { FieldValidation } from './generic/field-validation';

// The verbs' inputs and results, as the HTTP handlers and the server's own callers give and take them.

/** A decoded request body. */
export interface ObjectInput {
  value: unknown;
  /** Keys the body repeated in one object (field validation reports them). */
  duplicateFields?: readonly string[];
}

/** Options of every write (Kubernetes' CreateOptions, UpdateOptions, PatchOptions). */
export interface WriteOptions {
  /** `dryRun=All`: everything up to, not including, persistence. */
  dryRun?: boolean;
  /** The manager of the written fields: the `fieldManager` parameter, else from the user agent. */
  fieldManager?: string;
  /** Default Warn. */
  fieldValidation?: FieldValidation;
  /** The caller, for admission (undefined for the server's own writes). */
  user?: UserInfo;
  /** Where admission records the request's audit annotations (undefined when it is not audited). */
  auditAnnotations?: Record<string, string>;
}

export interface PatchOptions extends WriteOptions {
  /** Apply only: take conflicting fields from their managers. */
  force?: boolean;
}

export interface WriteResult {
  /** The object as stored (or as it would be, for a dry run); for a released object, its last state. */
  object: ApiObject;
  /** `Warning` header texts (unknown and duplicate fields under fieldValidation=Warn). */
  warnings: string[];
  /** True when the write created the object (201). */
  created: boolean;
}

/** Kubernetes' DeleteOptions as the delete verbs take them. */
export interface DeleteRequest {
  propagationPolicy?: PropagationPolicy;
  orphanDependents?: boolean;
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
}

export interface DeleteResult {
  /** The removed object's last state, or the object left Terminating. */
  object: ApiObject;
  /** True when the object left the store; false when it waits for finalizers or its grace period. */
  removed: boolean;
}

export interface GetQuery {
  resourceVersion?: string;
}

export interface ListQuery {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

export interface ListOutcome {
  items: readonly ApiObject[];
  resourceVersion: string;
  /** Present when more items remain. */
  continue?: string;
  remainingItemCount?: number;
}

export interface WatchQuery {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
  /** When the watch will be ended (epoch ms): a bookmark goes out shortly before. */
  deadline?: number;
}

export type ResourceWatchEvent =
  { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: ApiObject } | { type: 'BOOKMARK'; object: ApiObject } | { type: 'ERROR'; object: Status };

/** One client's watch: pull events with `for await`; `stop()` ends it. */
export interface ResourceWatch extends AsyncIterable<ResourceWatchEvent> {
  stop(): void;
  /**
   * Where offered (a watch of the cache with no conversion): the events that wait go to `consumer` at
   * once, and the next live events synchronously as they are dispatched, instead of waking a pull. Arm it
   * only with no event in hand: each event the iteration returns disarms it, and so does the
   * consumer answering false (it cannot take more now); events then arrive through the iteration, in order.
   */
  deliverDirectly?(consumer: (event: ResourceWatchEvent) => boolean): void;
}
