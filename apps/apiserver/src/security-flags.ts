import type { ApiServerFlags } from '@svc/options';
import type { ApiServerOptions, OidcOptions, RequestHeaderOptions } from '@svc/apiserver';

/** Modes `--authorization-mode` accepts that this server implements. */
const IMPLEMENTED_MODES = new Set(['AlwaysAllow', 'AlwaysDeny', 'RBAC', 'Node', 'Webhook']);

/**
 * The authentication and authorization flags as options. A flag this server does not implement yet
 * is refused with its name rather than accepted and ignored.
 */
export function securityOptionsFromFlags(o: ApiServerFlags): Pick<ApiServerOptions, 'authentication' | 'authorization'> {
  const notImplemented: Array<[string, unknown]> = [];
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
  const oidc = oidcOptionsFromFlags(o);
  const requestHeader = requestHeaderOptionsFromFlags(o);
  return {
    authentication: {
      requestHeader,
      oidc,
      clientCaFile: o.clientCaFile || undefined,
      tokenAuthFile: o.tokenAuthFile || undefined,
      bootstrapTokens: o.enableBootstrapTokenAuth === true,
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
            extendExpiration: o.serviceAccountExtendTokenExpiration,
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

/** `--oidc-*`; a claim or prefix flag without an issuer would be ignored, so it is refused. */
function oidcOptionsFromFlags(o: ApiServerFlags): OidcOptions | undefined {
  if (!o.oidcIssuerUrl) {
    for (const [flag, value] of [
      ['oidc-client-id', o.oidcClientId],
      ['oidc-ca-file', o.oidcCaFile],
      ['oidc-username-prefix', o.oidcUsernamePrefix],
      ['oidc-groups-claim', o.oidcGroupsClaim],
      ['oidc-groups-prefix', o.oidcGroupsPrefix],
    ] as const) {
      if (value) throw new Error(`--${flag} requires --oidc-issuer-url`);
    }
    if (Object.keys(o.oidcRequiredClaim ?? {}).length > 0) throw new Error('--oidc-required-claim requires --oidc-issuer-url');
    return undefined;
  }
  return {
    issuerUrl: o.oidcIssuerUrl,
    clientId: o.oidcClientId ?? '',
    caFile: o.oidcCaFile || undefined,
    usernameClaim: o.oidcUsernameClaim || 'sub',
    usernamePrefix: o.oidcUsernamePrefix || undefined,
    groupsClaim: o.oidcGroupsClaim || undefined,
    groupsPrefix: o.oidcGroupsPrefix || undefined,
    requiredClaims: o.oidcRequiredClaim ?? {},
    signingAlgs: o.oidcSigningAlgs,
  };
}

/** `--requestheader-*`; header flags without the CA, or the CA without a username header, would do nothing, so they are refused. */
function requestHeaderOptionsFromFlags(o: ApiServerFlags): RequestHeaderOptions | undefined {
  const given = (list: readonly string[] | undefined) => (list ?? []).filter((h) => h.trim() !== '');
  const usernameHeaders = given(o.requestheaderUsernameHeaders);
  if (!o.requestheaderClientCaFile) {
    for (const [flag, list] of [
      ['requestheader-allowed-names', o.requestheaderAllowedNames],
      ['requestheader-username-headers', o.requestheaderUsernameHeaders],
      ['requestheader-group-headers', o.requestheaderGroupHeaders],
      ['requestheader-extra-headers-prefix', o.requestheaderExtraHeadersPrefix],
    ] as const) {
      if (given(list).length > 0) throw new Error(`--${flag} requires --requestheader-client-ca-file`);
    }
    return undefined;
  }
  if (usernameHeaders.length === 0) throw new Error('--requestheader-client-ca-file requires --requestheader-username-headers (usually X-Remote-User)');
  return {
    clientCaFile: o.requestheaderClientCaFile,
    allowedNames: given(o.requestheaderAllowedNames),
    usernameHeaders,
    groupHeaders: given(o.requestheaderGroupHeaders),
    extraHeadersPrefix: given(o.requestheaderExtraHeadersPrefix),
  };
}
