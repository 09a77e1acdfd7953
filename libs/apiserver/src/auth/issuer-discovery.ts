import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestContext } from '../request/request-context';
import { methodNotAllowedStatus } from '../status/status';
import { writeStatus } from '../status/write-status';
import type { ServiceAccountTokens } from './service-account-tokens';

type Handler = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

function writeJson(res: ServerResponse, code: number, body: unknown, contentType = 'application/json'): void {
  const text = JSON.stringify(body);
  res.statusCode = code;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** The service account issuer's discovery documents (`/.well-known/openid-configuration` and the key set at `/openid/v1/jwks`). */
export function withServiceAccountIssuerDiscovery(tokens: ServiceAccountTokens): Handler {
  return (req, res, next) => {
    const { info } = requestContext(req);
    if (info.isResourceRequest || (info.path !== '/.well-known/openid-configuration' && info.path !== '/openid/v1/jwks')) return next();
    if (req.method !== 'GET') return writeStatus(res, methodNotAllowedStatus());
    if (info.path === '/.well-known/openid-configuration') return writeJson(res, 200, tokens.discoveryDocument());
    void tokens.keySet().then((set) => writeJson(res, 200, set, 'application/jwk-set+json'));
  };
}
