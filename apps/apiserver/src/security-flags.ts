import type { ApiServerFlags } from '@svc/options';
import type { ApiServerOptions } from '@svc/apiserver';

/** Modes `--authorization-mode` accepts that this server implements. */
const IMPLEMENTED_MODES = new Set(['AlwaysAllow', 'AlwaysDeny', 'RBAC', 'Node', 'Webhook']);

/**
 * The authentication and authorization flags as options. A flag this server does not implement yet
 * is refused with its name rather than accepted and ignored.
 */
export function securityOptionsFromFlags(o: ApiServerFlags): Pick<ApiServerOptions, 'authentication' | 'authorization'> {
  const notImplemented: Array<[string, unknown]> = [
    ['authentication-token-webhook-config-file', o.authenticationTokenWebhookConfigFile],
    ['enable-bootstrap-token-auth', o.enableBootstrapTokenAuth],
    ['oidc-issuer-url', o.oidcIssuerUrl],
    ['requestheader-client-ca-file', o.requestheaderClientCaFile],
  ];
  // Tokens of a service account are always checked against the stored account here.
  if (o.serviceAccountLookup === false) throw new Error('--service-account-lookup=false is not supported by this server');
  const issuers = o.serviceAccountIssuer ?? [];
  if (o.serviceAccountSigningKeyFile && issuers.length === 0) throw new Error('--service-account-signing-key-file requires --service-account-issuer');
  if (!o.serviceAccountSigningKeyFile) {
    for (const [flag, given] of [
      ['service-account-issuer', issuers.length > 0],
      ['service-account-key-file', (o.serviceAccountKeyFile ?? []).length > 0],
      ['api-audiences', (o.apiAudiences ?? []).length > 0],
      ['service-account-jwks-uri', Boolean(o.serviceAccountJwksUri)],
    ] as const) {
      if (given) throw new Error(`--${flag} requires --service-account-signing-key-file on this server`);
    }
  }
  for (const [flag, value] of notImplemented) {
    if (value !== undefined && value !== false && value !== '') throw new Error(`--${flag} is not supported by this server yet`);
  }
  for (const mode of o.authorizationMode) {
    if (!IMPLEMENTED_MODES.has(mode))
      throw new Error(`--authorization-mode ${mode} is not supported by this server yet (supported: ${[...IMPLEMENTED_MODES].join(', ')})`);
  }
  return {
    authentication: {
      clientCaFile: o.clientCaFile || undefined,
      tokenAuthFile: o.tokenAuthFile || undefined,
      anonymous: o.anonymousAuth,
      // The connection file the server writes authenticates as an administrator.
      selfIssuedClients: true,
      serviceAccounts: o.serviceAccountSigningKeyFile
        ? {
            signingKeyFile: o.serviceAccountSigningKeyFile,
            keyFiles: o.serviceAccountKeyFile ?? [],
            issuers,
            audiences: o.apiAudiences ?? [],
            maxExpirationSeconds: o.serviceAccountMaxTokenExpiration ? Math.floor(o.serviceAccountMaxTokenExpiration / 1000) : undefined,
            jwksUri: o.serviceAccountJwksUri || undefined,
          }
        : undefined,
    },
    authorization: {
      modes: o.authorizationMode,
      webhook: o.authorizationWebhookConfigFile
        ? {
            configFile: o.authorizationWebhookConfigFile,
            version: o.authorizationWebhookVersion,
            authorizedTtlMs: o.authorizationWebhookCacheAuthorizedTtl,
            unauthorizedTtlMs: o.authorizationWebhookCacheUnauthorizedTtl,
          }
        : undefined,
    },
  };
}
