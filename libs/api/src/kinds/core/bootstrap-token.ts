import type { Secret } from './secret';

/**
 * Bootstrap tokens (Kubernetes' bootstrap.kubernetes.io/token Secrets): `<id>.<secret>` tokens a new
 * node joins with, each kept in the system namespace as the Secret `bootstrap-token-<id>`.
 */

/** The Secret types of a bootstrap token: the spec's and Kubernetes'. */
export const BOOTSTRAP_TOKEN_SECRET_TYPES: readonly string[] = ['bootstrap.svc.io/token', 'bootstrap.kubernetes.io/token'];
export const BOOTSTRAP_TOKEN_SECRET_PREFIX = 'bootstrap-token-';
/** `<id>.<secret>`: six and sixteen lowercase letters or digits. */
export const BOOTSTRAP_TOKEN_PATTERN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
export const BOOTSTRAP_TOKEN_ID_PATTERN = /^[a-z0-9]{6}$/;
/** The group every bootstrap token is in; a token's extra groups are under it (`system:bootstrappers:<name>`). */
export const BOOTSTRAPPERS_GROUP = 'system:bootstrappers';
export const BOOTSTRAP_USER_PREFIX = 'system:bootstrap:';
/** The public ConfigMap the bootstrap signer signs with each signing token (`jws-kubeconfig-<id>`). */
export const CLUSTER_INFO_CONFIG_MAP = 'cluster-info';
export const JWS_SIGNATURE_PREFIX = 'jws-kubeconfig-';

/** A key of a token Secret, decoded (data is base64; stringData is merged into data on write). */
export function bootstrapTokenValue(secret: Pick<Secret, 'data'>, key: string): string | undefined {
  const value = secret.data?.[key];
  return typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : undefined;
}

export function isBootstrapTokenSecret(secret: Pick<Secret, 'type' | 'metadata'>): boolean {
  return BOOTSTRAP_TOKEN_SECRET_TYPES.includes(String(secret.type ?? '')) && (secret.metadata?.name ?? '').startsWith(BOOTSTRAP_TOKEN_SECRET_PREFIX);
}

/** When a token Secret expires (its `expiration`, RFC 3339): undefined for never, NaN when it does not parse (expired). */
export function bootstrapTokenExpiration(secret: Pick<Secret, 'data'>): number | undefined {
  const expiration = bootstrapTokenValue(secret, 'expiration');
  if (expiration === undefined || expiration === '') return undefined;
  return Date.parse(expiration);
}

/** Whether a token Secret's `expiration` is past; a value that does not parse counts as expired. */
export function bootstrapTokenExpired(secret: Pick<Secret, 'data'>, now: number): boolean {
  const at = bootstrapTokenExpiration(secret);
  return at !== undefined && (Number.isNaN(at) || at <= now);
}
