import type { IncomingMessage } from 'node:http';
import { ANONYMOUS_USER, type UserInfo } from './user-info';

/**
 * What one authenticator makes of a request: the user it recognised, an error for a credential it
 * owns but refuses (a bad certificate, an unknown token), or undefined when the request carries
 * nothing it reads.
 */
export type AuthenticationOutcome = { user: UserInfo; audiences?: string[] } | { error: string } | undefined;

export interface Authenticator {
  readonly name: string;
  authenticate(req: IncomingMessage): AuthenticationOutcome | Promise<AuthenticationOutcome>;
}

/** Who the request is from, or why it is refused (401). */
export type AuthenticationResult = { user: UserInfo } | { error: string };

export const AUTHENTICATED_GROUP = 'system:authenticated';
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';

/**
 * Kubernetes' union of request authenticators: the first that recognises the request names the
 * user (who gains `system:authenticated`); a credential nobody accepts is refused, never anonymous;
 * a request carrying no credential at all is anonymous when that is allowed.
 */
export class RequestAuthenticator {
  constructor(
    readonly authenticators: readonly Authenticator[],
    readonly anonymousAllowed: boolean,
  ) {}

  /** No authenticator and anonymous allowed: every request is anonymous without looking at it. */
  get trivial(): boolean {
    return this.authenticators.length === 0 && this.anonymousAllowed;
  }

  async authenticate(req: IncomingMessage): Promise<AuthenticationResult> {
    const errors: string[] = [];
    for (const authenticator of this.authenticators) {
      let outcome: AuthenticationOutcome;
      try {
        outcome = await authenticator.authenticate(req);
      } catch (error) {
        outcome = { error: error instanceof Error ? error.message : String(error) };
      }
      if (outcome === undefined) continue;
      if ('user' in outcome) return { user: withAuthenticatedGroup(outcome.user) };
      errors.push(outcome.error);
    }
    if (errors.length > 0) return { error: errors.join('; ') };
    if (this.anonymousAllowed) return { user: ANONYMOUS_USER };
    return { error: 'no credentials' };
  }
}

/** Kubernetes' AuthenticatedGroupAdder. */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.name === ANONYMOUS_USER.name || user.groups.includes(AUTHENTICATED_GROUP)) return user;
  if (user.groups.includes(UNAUTHENTICATED_GROUP)) return user;
  return { ...user, groups: [...user.groups, AUTHENTICATED_GROUP] };
}
