import { newBadRequest, newInvalid, type UserInfo } from '@svc/machinery';

/** One review kind: what it answers in `status` for the request's body and caller. */
export interface Review {
  kind: string;
  /** LocalSubjectAccessReview: served under a namespace only. */
  namespaced?: boolean;
  review(body: Record<string, unknown>, user: UserInfo, namespace: string): Promise<Record<string, unknown>>;
}

/** The review resources of one API group family, by resource name. */
export type Reviews = Readonly<Record<string, Review>>;

/**
 * A review's answer, as Kubernetes' review REST creates it: the request's object (of the review's
 * kind; a LocalSubjectAccessReview about the path's namespace only) with its status filled in, stored
 * nowhere.
 */
export async function answerReview(entry: Review, body: unknown, user: UserInfo, namespace: string, apiVersion: string): Promise<Record<string, unknown>> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw newBadRequest(`the request body must be a ${entry.kind} object`);
  const object = body as Record<string, unknown>;
  if (object.kind !== undefined && object.kind !== entry.kind) {
    throw newBadRequest(`the kind in the data (${JSON.stringify(object.kind)}) does not match the expected kind (${entry.kind})`);
  }
  const spec = (object.spec ?? {}) as Record<string, unknown>;
  if (typeof spec !== 'object' || Array.isArray(spec)) throw newBadRequest('spec must be an object');
  if (namespace !== '') checkReviewNamespace(entry.kind, spec, namespace);
  const filled = await entry.review(object, user, namespace);
  const metadata = { ...((object.metadata as Record<string, unknown> | undefined) ?? {}), creationTimestamp: null };
  const out: Record<string, unknown> = { kind: entry.kind, apiVersion, metadata, spec: object.spec ?? {}, ...filled };
  if (entry.kind === 'SelfSubjectReview') delete out.spec;
  return out;
}

function checkReviewNamespace(kind: string, spec: Record<string, unknown>, namespace: string): void {
  const given = (spec.resourceAttributes as { namespace?: unknown } | undefined)?.namespace;
  if (given !== undefined && given !== '' && given !== namespace) {
    throw newInvalid({ group: 'authorization.k8s.io', kind }, '', [
      { type: 'FieldValueInvalid', field: 'spec.resourceAttributes.namespace', badValue: given, detail: 'must match metadata.namespace' },
    ]);
  }
}

/** A user as review statuses carry it (`status.userInfo`, TokenReview's `status.user`). */
export function userInfoJson(user: UserInfo): Record<string, unknown> {
  const out: Record<string, unknown> = { username: user.name };
  if (user.uid !== undefined && user.uid !== '') out.uid = user.uid;
  out.groups = [...user.groups];
  if (user.extra !== undefined && Object.keys(user.extra).length > 0) out.extra = user.extra;
  return out;
}

export function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
