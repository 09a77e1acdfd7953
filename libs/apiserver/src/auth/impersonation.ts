import type { IncomingMessage } from 'node:http';
import { AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP } from '@svc/machinery';
import type { AuthorizationAttributes, UnionAuthorizer } from './authorizer';
import { ANONYMOUS_USER, type UserInfo } from '@svc/machinery';

/** Most groups plus extra values one request may impersonate. */
export const MAX_IMPERSONATION_VALUES = 100;

export interface ImpersonationRequest {
  user: string;
  uid?: string;
  groups: string[];
  extra: Record<string, string[]>;
}

const EXTRA_PREFIX = 'impersonate-extra-';

/** The impersonation the headers ask for; undefined when they ask for none. Throws on a malformed request. */
export function impersonationRequest(req: IncomingMessage): ImpersonationRequest | undefined {
  const headers = req.headers;
  const names = Object.keys(headers).filter((n) => n.startsWith('impersonate-'));
  if (names.length === 0) return undefined;
  const user = single(headers['impersonate-user']);
  const uid = single(headers['impersonate-uid']);
  const groups = values(headers['impersonate-group']);
  const extra: Record<string, string[]> = {};
  let count = groups.length;
  for (const name of names) {
    if (!name.startsWith(EXTRA_PREFIX)) continue;
    let key = name.slice(EXTRA_PREFIX.length);
    try {
      key = decodeURIComponent(key).toLowerCase();
    } catch {
      throw new Error(`invalid impersonation extra key ${JSON.stringify(key)}`);
    }
    const list = values(headers[name]);
    count += list.length;
    extra[key] = list;
  }
  if (count > MAX_IMPERSONATION_VALUES) throw new Error(`at most ${MAX_IMPERSONATION_VALUES} impersonated groups and extra values are allowed`);
  if (user === undefined || user === '') {
    if (groups.length > 0 || Object.keys(extra).length > 0 || uid !== undefined) {
      throw new Error('requested impersonation of groups, extra or uid without impersonating a user');
    }
    return undefined;
  }
  return { user, uid, groups, extra };
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

// Node joins repeated headers with ", " for unknown names; Kubernetes reads each header line as one value.
function values(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  return list
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/**
 * The user acted as, once the actor may impersonate each part (the user or service account, every
 * group, every extra value, the uid); or the first refused part.
 */
export async function impersonatedUser(
  request: ImpersonationRequest,
  actor: UserInfo,
  authorizer: UnionAuthorizer,
): Promise<{ user: UserInfo } | { denied: AuthorizationAttributes; reason: string }> {
  const checks: AuthorizationAttributes[] = [];
  const base = { user: actor, verb: 'impersonate', isResourceRequest: true, apiVersion: '', subresource: '', path: '', namespace: '' };
  const serviceAccount = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(request.user);
  const groups = [...request.groups];
  if (serviceAccount) {
    checks.push({ ...base, apiGroup: '', resource: 'serviceaccounts', namespace: serviceAccount[1], name: serviceAccount[2] });
    if (groups.length === 0) groups.push('system:serviceaccounts', `system:serviceaccounts:${serviceAccount[1]}`);
  } else {
    checks.push({ ...base, apiGroup: '', resource: 'users', name: request.user });
  }
  for (const group of request.groups) checks.push({ ...base, apiGroup: '', resource: 'groups', name: group });
  for (const [key, list] of Object.entries(request.extra)) {
    for (const value of list) checks.push({ ...base, apiGroup: 'authentication.k8s.io', resource: 'userextras', subresource: key, name: value });
  }
  if (request.uid !== undefined) checks.push({ ...base, apiGroup: 'authentication.k8s.io', resource: 'uids', name: request.uid });
  if (!authorizer.trivial) {
    for (const check of checks) {
      const result = await authorizer.authorize(check);
      if (result.decision !== 'allow') return { denied: check, reason: result.reason };
    }
  }
  if (request.user === ANONYMOUS_USER.name) {
    if (!groups.includes(UNAUTHENTICATED_GROUP)) groups.push(UNAUTHENTICATED_GROUP);
  } else if (!groups.includes(AUTHENTICATED_GROUP)) groups.push(AUTHENTICATED_GROUP);
  const user: UserInfo = { name: request.user, groups, ...(request.uid !== undefined ? { uid: request.uid } : {}) };
  return { user: Object.keys(request.extra).length > 0 ? { ...user, extra: request.extra } : user };
}
