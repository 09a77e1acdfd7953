import type { IncomingMessage } from 'node:http';
import type { Authenticator, AuthenticationOutcome, UserInfo } from '@svc/machinery';
import { bearerToken } from './bearer-token';

/** An authenticator of bearer tokens (a static file, service account JWTs, OIDC). */
export interface TokenAuthenticator {
  readonly name: string;
  /**
   * `audiences`: those the token must be meant for (a TokenReview's); the server's own by default.
   * An accepting answer names the audiences it matched, when the authenticator knows of audiences.
   */
  authenticateToken(token: string, audiences?: readonly string[]): AuthenticationOutcome | Promise<AuthenticationOutcome>;
}

/**
 * The `Authorization: Bearer` reader in front of the token authenticators: a token none of them
 * accepts is refused (401), never taken for anonymous.
 */
export class BearerTokenAuthenticator implements Authenticator {
  readonly name = 'bearer-token';

  constructor(private readonly tokenAuthenticators: readonly TokenAuthenticator[]) {}

  async authenticate(req: IncomingMessage): Promise<AuthenticationOutcome> {
    const token = bearerToken(req);
    if (token === undefined) return undefined;
    if (token === null) return { error: 'invalid bearer token' };
    const outcome = await authenticateToken(this.tokenAuthenticators, token);
    // Kubernetes drops the credential once used, so nothing behind authentication can leak it.
    if ('user' in outcome) delete req.headers.authorization;
    return outcome;
  }
}

/** Asks each token authenticator in turn: the first to accept names the user; a token none accepts is refused. */
export async function authenticateToken(tokenAuthenticators: readonly TokenAuthenticator[], token: string): Promise<{ user: UserInfo } | { error: string }> {
  const errors: string[] = [];
  for (const authenticator of tokenAuthenticators) {
    const outcome = await authenticator.authenticateToken(token);
    if (outcome === undefined) continue;
    if ('user' in outcome) return { user: outcome.user };
    errors.push(outcome.error);
  }
  return { error: errors.length > 0 ? errors.join('; ') : 'invalid bearer token' };
}
