/**
 * Who is calling, as Kubernetes' user.Info: the authenticators produce it, impersonation may replace
 * it, authorization, admission and audit read it.
 */
export interface UserInfo {
  /** `system:anonymous`, `system:serviceaccount:<ns>:<name>`, `system:node:<name>`, or a user's name. */
  readonly name: string;
  readonly uid?: string;
  /** `system:authenticated` or `system:unauthenticated` included. */
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** The caller of a request no authenticator recognised, when anonymous requests are allowed. */
export const ANONYMOUS_USER: UserInfo = Object.freeze({ name: 'system:anonymous', groups: Object.freeze(['system:unauthenticated']) });
