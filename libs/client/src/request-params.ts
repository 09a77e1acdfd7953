import type { FieldValidation, Preconditions, PropagationPolicy, ResourceVersionMatch } from '@svc/machinery';

export type { FieldValidation, ResourceVersionMatch };

/** Options every call takes. */
export interface CallParams {
  /** Cancels the call, including any wait for the rate limiter or a retry. */
  signal?: AbortSignal;
}

export interface NamespaceParams {
  /**
   * Namespace of a namespaced resource. For writes the object's own `metadata.namespace` is used
   * when this is absent; for lists and watches, absent means all namespaces.
   */
  namespace?: string;
}

export interface GetParams extends CallParams, NamespaceParams {
  resourceVersion?: string;
}

export interface SelectorParams {
  labelSelector?: string;
  fieldSelector?: string;
}

export interface ListParams extends CallParams, NamespaceParams, SelectorParams {
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: ResourceVersionMatch;
  timeoutSeconds?: number;
}

export interface WatchParams extends CallParams, NamespaceParams, SelectorParams {
  /** Unset: synthetic ADDED events for the current state first; `0`: the same from any state; other: changes after it. */
  resourceVersion?: string;
  resourceVersionMatch?: ResourceVersionMatch;
  allowWatchBookmarks?: boolean;
  /** The server ends the watch after this many seconds. */
  timeoutSeconds?: number;
  sendInitialEvents?: boolean;
}

export interface WriteParams extends CallParams, NamespaceParams {
  /** Run the request without storing anything (`dryRun=All`). */
  dryRun?: boolean;
  fieldManager?: string;
  fieldValidation?: FieldValidation;
}

export type PostParams = WriteParams;

export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

export interface PatchParams extends WriteParams {
  /** Apply only: take fields over from other managers. */
  force?: boolean;
}

export interface ApplyParams extends WriteParams {
  /** Required for server-side apply. */
  fieldManager: string;
  force?: boolean;
}

export interface DeleteParams extends CallParams, NamespaceParams {
  propagationPolicy?: PropagationPolicy;
  gracePeriodSeconds?: number;
  preconditions?: Preconditions;
  dryRun?: boolean;
}

export interface DeleteCollectionParams extends DeleteParams, SelectorParams {
  resourceVersion?: string;
  resourceVersionMatch?: ResourceVersionMatch;
  limit?: number;
  continue?: string;
  timeoutSeconds?: number;
}

/** One operation of a JSON patch (RFC 6902). */
export interface JsonPatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  value?: unknown;
  from?: string;
}

/** A merge, strategic merge or apply patch of T: any subset of its fields, `null` removes a field. */
export type MergePatch<T> = T extends readonly unknown[] ? T : T extends object ? { [K in keyof T]?: MergePatch<T[K]> | null } : T;
