import type { IncomingMessage } from 'node:http';
import type { TokenAuthenticator } from './token-authenticator';
import { BEARER_PROTOCOL_PREFIX, WebSocketProtocolAuthenticator } from './websocket-protocol-authenticator';

const tokens: TokenAuthenticator = {
  name: 'static',
  authenticateToken: (token) => (token === 'good-token' ? { user: { name: 'alice', groups: [] } } : { error: 'unknown token' }),
};
const authenticator = new WebSocketProtocolAuthenticator([tokens]);

function request(protocols: string | undefined, websocket = true): IncomingMessage {
  const headers: Record<string, string> = websocket ? { connection: 'keep-alive, Upgrade', upgrade: 'websocket' } : {};
  const rawHeaders = Object.entries(headers).flat();
  if (protocols !== undefined) {
    headers['sec-websocket-protocol'] = protocols;
    rawHeaders.push('Sec-WebSocket-Protocol', protocols);
  }
  return { headers, rawHeaders } as unknown as IncomingMessage;
}

const encoded = (token: string) => `${BEARER_PROTOCOL_PREFIX}${Buffer.from(token).toString('base64url')}`;

describe('the WebSocket bearer token subprotocol', () => {
  it('authenticates the token and takes its subprotocol out of both views of the headers', async () => {
    const req = request(`v5.channel.k8s.io, ${encoded('good-token')}`);
    await expect(authenticator.authenticate(req)).resolves.toEqual({ user: { name: 'alice', groups: [] } });
    expect(req.headers['sec-websocket-protocol']).toBe('v5.channel.k8s.io');
    expect(req.rawHeaders).toEqual(['connection', 'keep-alive, Upgrade', 'upgrade', 'websocket', 'Sec-WebSocket-Protocol', 'v5.channel.k8s.io']);
  });

  it('refuses an unknown token, a second token, a token alone, and a malformed encoding', async () => {
    await expect(authenticator.authenticate(request(`x, ${encoded('bad-token')}`))).resolves.toEqual({ error: 'unknown token' });
    await expect(authenticator.authenticate(request(`x, ${encoded('good-token')}, ${encoded('good-token')}`))).resolves.toEqual({
      error: 'multiple base64.bearer.authorization tokens specified',
    });
    await expect(authenticator.authenticate(request(encoded('good-token')))).resolves.toEqual({ error: 'missing additional subprotocol' });
    await expect(authenticator.authenticate(request(`x, ${BEARER_PROTOCOL_PREFIX}a+b/`))).resolves.toEqual({
      error: 'invalid base64.bearer.authorization token encoding',
    });
    await expect(authenticator.authenticate(request(`x, ${BEARER_PROTOCOL_PREFIX}${'A'.repeat(20_000)}`))).resolves.toEqual({
      error: 'invalid base64.bearer.authorization token encoding',
    });
    await expect(authenticator.authenticate(request(`x, ${BEARER_PROTOCOL_PREFIX}${Buffer.from([0xff, 0xfe]).toString('base64url')}`))).resolves.toEqual({
      error: 'invalid base64.bearer.authorization token',
    });
  });

  it('reads nothing of a request that is no WebSocket handshake, or carries no token', async () => {
    await expect(authenticator.authenticate(request(`x, ${encoded('good-token')}`, false))).resolves.toBeUndefined();
    await expect(authenticator.authenticate(request('v5.channel.k8s.io'))).resolves.toBeUndefined();
    await expect(authenticator.authenticate(request(undefined))).resolves.toBeUndefined();
  });
});
