import { timingSafeEqual } from 'node:crypto';
import {
  BOOTSTRAP_TOKEN_PATTERN,
  BOOTSTRAP_TOKEN_SECRET_PREFIX,
  BOOTSTRAP_TOKEN_SECRET_TYPES,
  BOOTSTRAP_USER_PREFIX,
  BOOTSTRAPPERS_GROUP,
  bootstrapTokenExpired,
  bootstrapTokenValue,
  type Secret,
} from '@svc/api';
import type { AuthenticationOutcome } from '@svc/machinery';
import type { TokenAuthenticator } from './token-authenticator';

/** The namespace bootstrap token Secrets live in (Kubernetes' kube-system). */
export const BOOTSTRAP_TOKEN_NAMESPACE = 'svc-system';

const EXTRA_GROUP_PATTERN = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

/** Reads a Secret of the system namespace by name; undefined when there is none. */
export type BootstrapSecretLookup = (name: string) => Promise<Secret | undefined>;

/**
 * Kubernetes' bootstrap token authenticator (`--enable-bootstrap-token-auth`): `<id>.<secret>` names the
 * Secret `bootstrap-token-<id>` of the system namespace, whose type is a bootstrap token's, whose
 * `token-secret` matches, which allows authentication and has not expired; the user is
 * `system:bootstrap:<id>` in `system:bootstrappers` and the token's `auth-extra-groups`.
 */
export class BootstrapTokenAuthenticator implements TokenAuthenticator {
  readonly name = 'bootstrap-token';

  constructor(
    private readonly lookup: BootstrapSecretLookup,
    private readonly now: () => number = Date.now,
  ) {}

  async authenticateToken(token: string): Promise<AuthenticationOutcome> {
    const match = BOOTSTRAP_TOKEN_PATTERN.exec(token);
    // Not a bootstrap token: another authenticator's to judge.
    if (!match) return undefined;
    const [, id, secretPart] = match;
    const secret = await this.lookup(`${BOOTSTRAP_TOKEN_SECRET_PREFIX}${id}`);
    if (secret === undefined || secret.metadata?.deletionTimestamp) return undefined;
    if (!BOOTSTRAP_TOKEN_SECRET_TYPES.includes(String(secret.type ?? ''))) return undefined;
    const stored = bootstrapTokenValue(secret, 'token-secret') ?? '';
    if (stored.length !== secretPart.length || !timingSafeEqual(Buffer.from(stored), Buffer.from(secretPart))) return undefined;
    if (bootstrapTokenValue(secret, 'token-id') !== id) return undefined;
    if (bootstrapTokenExpired(secret, this.now())) return { error: `bootstrap token ${id} has expired` };
    if (bootstrapTokenValue(secret, 'usage-bootstrap-authentication') !== 'true') return undefined;
    const groups = [BOOTSTRAPPERS_GROUP];
    for (const group of (bootstrapTokenValue(secret, 'auth-extra-groups') ?? '').split(',')) {
      const name = group.trim();
      if (name === '') continue;
      if (!EXTRA_GROUP_PATTERN.test(name))
        return { error: `bootstrap token ${id}: auth-extra-groups: group ${JSON.stringify(name)} does not match ${EXTRA_GROUP_PATTERN.source}` };
      if (!groups.includes(name)) groups.push(name);
    }
    return { user: { name: `${BOOTSTRAP_USER_PREFIX}${id}`, groups } };
  }
}
