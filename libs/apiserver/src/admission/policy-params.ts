import type { ApiObject, LabelSelector } from '@svc/api';

/** Params of a policy binding: objects read in full, at most this many for one selector. */
export const MAX_POLICY_PARAMS = 100;

export interface ParamQuery {
  apiVersion: string;
  kind: string;
  /** Empty for a cluster-scoped param kind, or for every namespace. */
  namespace: string;
  name?: string;
  selector?: LabelSelector;
}

/** The objects a paramRef names; throws an Error when its kind is not served. */
export type ParamSource = (query: ParamQuery) => Promise<ApiObject[]>;
