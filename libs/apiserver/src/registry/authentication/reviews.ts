import { newInvalid, withAuthenticatedGroup } from '@svc/machinery';
import type { TokenAuthenticator } from '../../auth/token-authenticator';
import { str, strings, userInfoJson, type Reviews } from '../review-rest';

/**
 * The authentication group's reviews: SelfSubjectReview (who the caller is) and TokenReview (whom a
 * token names, asked of the token authenticators in turn; none answers every review unauthenticated).
 */
export function authenticationReviews(tokenAuthenticators: readonly TokenAuthenticator[]): Reviews {
  return {
    selfsubjectreviews: { kind: 'SelfSubjectReview', review: (_body, user) => Promise.resolve({ status: { userInfo: userInfoJson(user) } }) },
    tokenreviews: { kind: 'TokenReview', review: (body) => tokenReview(body, tokenAuthenticators) },
  };
}

async function tokenReview(body: Record<string, unknown>, authenticators: readonly TokenAuthenticator[]): Promise<Record<string, unknown>> {
  const spec = (body.spec ?? {}) as Record<string, unknown>;
  const token = str(spec.token);
  const audiences = strings(spec.audiences);
  if (token === '') {
    throw newInvalid({ group: 'authentication.k8s.io', kind: 'TokenReview' }, '', [
      { type: 'FieldValueRequired', field: 'spec.token', detail: 'token is required' },
    ]);
  }
  for (const authenticator of authenticators) {
    const outcome = await authenticator.authenticateToken(token, audiences.length > 0 ? audiences : undefined);
    if (outcome === undefined) continue;
    if ('user' in outcome) {
      const user = withAuthenticatedGroup(outcome.user);
      const status: Record<string, unknown> = { authenticated: true, user: userInfoJson(user) };
      if (outcome.audiences !== undefined) status.audiences = outcome.audiences;
      return { status };
    }
    return { status: { authenticated: false, user: {}, error: outcome.error } };
  }
  return { status: { authenticated: false, user: {}, error: 'invalid bearer token' } };
}
