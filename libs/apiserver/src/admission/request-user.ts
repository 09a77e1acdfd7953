import { ANONYMOUS_USER } from '@svc/machinery';
import type { AdmissionAttributes } from './admission';

/** The `userInfo` of an AdmissionReview and of a policy's `request`: the caller, or the anonymous user. */
export function requestUser(attributes: AdmissionAttributes): { username: string; uid?: string; groups: string[]; extra?: Record<string, string[]> } {
  const user = attributes.user ?? ANONYMOUS_USER;
  const out: { username: string; uid?: string; groups: string[]; extra?: Record<string, string[]> } = { username: user.name, groups: [...user.groups] };
  if (user.uid !== undefined) out.uid = user.uid;
  if (user.extra !== undefined) out.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
  return out;
}
