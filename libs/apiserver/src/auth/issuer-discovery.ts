import type { MuxRoute, RouteHandler } from '../serving/mux';
import { methodNotAllowedStatus } from '../status/status';
import type { ServiceAccountTokens } from './service-account-tokens';

/**
 * The service account issuer's discovery documents, as Kubernetes' ServiceAccountIssuerDiscovery serves
 * them: `/.well-known/openid-configuration` and the key set at `/openid/v1/jwks`; GET only.
 */
export function issuerDiscoveryRoutes(tokens: ServiceAccountTokens): MuxRoute[] {
  const getOnly =
    (answer: RouteHandler): RouteHandler =>
    (req, res, params) =>
      req.method === 'GET' ? answer(req, res, params) : res.status(methodNotAllowedStatus());
  return [
    {
      path: '/.well-known/openid-configuration',
      handler: getOnly((_req, res) => res.end(200, JSON.stringify(tokens.discoveryDocument()), { 'Content-Type': 'application/json' })),
    },
    {
      path: '/openid/v1/jwks',
      handler: getOnly(async (_req, res) => res.end(200, JSON.stringify(await tokens.keySet()), { 'Content-Type': 'application/jwk-set+json' })),
    },
  ];
}
