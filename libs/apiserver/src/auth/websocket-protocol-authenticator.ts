import type { IncomingMessage } from 'node:http';
import type { Authenticator, AuthenticationOutcome } from '@svc/machinery';
import { isWebSocketRequest } from '../request/upgrade';
import { MAX_BEARER_TOKEN_LENGTH } from './bearer-token';
import { authenticateToken, type TokenAuthenticator } from './token-authenticator';

/** The subprotocol prefix a browser's WebSocket carries its token under (it cannot set `Authorization`). */
export const BEARER_PROTOCOL_PREFIX = 'base64url.bearer.authorization.k8s.io.';

/**
 * Kubernetes' WebSocket protocol authenticator: a WebSocket handshake may carry its bearer token as
 * the subprotocol `base64url.bearer.authorization.k8s.io.<token in unpadded base64url>`, beside at
 * least one real subprotocol for the server to answer with. Once the token is accepted that entry is
 * taken out of `Sec-WebSocket-Protocol`, so nothing behind authentication (a node agent the request
 * is proxied to, a log) ever sees it.
 */
export class WebSocketProtocolAuthenticator implements Authenticator {
  readonly name = 'websocket-protocol';

  constructor(private readonly tokenAuthenticators: readonly TokenAuthenticator[]) {}

  async authenticate(req: IncomingMessage): Promise<AuthenticationOutcome> {
    if (!isWebSocketRequest(req)) return undefined;
    const header = req.headers['sec-websocket-protocol'];
    if (header === undefined) return undefined;
    let token: string | undefined;
    const others: string[] = [];
    for (const offered of header.split(',')) {
      const protocol = offered.trim();
      if (!protocol.startsWith(BEARER_PROTOCOL_PREFIX)) {
        if (protocol !== '') others.push(protocol);
        continue;
      }
      if (token !== undefined) return { error: 'multiple base64.bearer.authorization tokens specified' };
      const encoded = protocol.slice(BEARER_PROTOCOL_PREFIX.length);
      // Unpadded base64url only, as Go's RawURLEncoding reads it; the bound keeps decoding cheap.
      if (encoded.length > Math.ceil((MAX_BEARER_TOKEN_LENGTH * 4) / 3) || !/^[A-Za-z0-9_-]*$/.test(encoded) || encoded.length % 4 === 1) {
        return { error: 'invalid base64.bearer.authorization token encoding' };
      }
      const bytes = Buffer.from(encoded, 'base64url');
      const decoded = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
      if (!Buffer.from(decoded, 'utf8').equals(bytes)) return { error: 'invalid base64.bearer.authorization token' };
      token = decoded;
    }
    if (token === undefined || token === '') return undefined;
    // The server must answer with some subprotocol, and the token's may not be it.
    if (others.length === 0) return { error: 'missing additional subprotocol' };
    const outcome = await authenticateToken(this.tokenAuthenticators, token);
    if ('user' in outcome) replaceProtocols(req, others.join(','));
    return outcome;
  }
}

/** Rewrites the offered subprotocols in both views of the headers: proxies forward the raw ones. */
function replaceProtocols(req: IncomingMessage, value: string): void {
  req.headers['sec-websocket-protocol'] = value;
  const raw: string[] = [];
  let written = false;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i].toLowerCase() !== 'sec-websocket-protocol') raw.push(req.rawHeaders[i], req.rawHeaders[i + 1]);
    else if (!written) {
      raw.push(req.rawHeaders[i], value);
      written = true;
    }
  }
  req.rawHeaders.splice(0, req.rawHeaders.length, ...raw);
}
