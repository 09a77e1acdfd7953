import type { IncomingMessage } from 'node:http';
import { RequestHeaderAuthenticator } from './request-header-authenticator';

/** A request over a connection without a client certificate, headers as sent. */
function request(raw: string[]): IncomingMessage {
  const headers: Record<string, string> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    headers[name] = headers[name] === undefined ? raw[i + 1] : `${headers[name]}, ${raw[i + 1]}`;
  }
  return { headers, rawHeaders: raw, socket: {} } as unknown as IncomingMessage;
}

describe('RequestHeaderAuthenticator', () => {
  const authenticator = new RequestHeaderAuthenticator([], {
    usernameHeaders: ['X-Remote-User'],
    groupHeaders: ['X-Remote-Group'],
    extraHeadersPrefix: ['X-Remote-Extra-'],
  });

  it('removes the identity headers of a caller without a certificate and leaves the decision to the others', () => {
    const req = request(['X-Remote-User', 'admin', 'X-Remote-Group', 'system:masters', 'x-remote-extra-scopes', 'all', 'Accept', 'application/json']);
    expect(authenticator.authenticate(req)).toBeUndefined();
    expect(req.headers).toEqual({ accept: 'application/json' });
  });

  it('does not look at a request that claims nobody', () => {
    const req = request(['X-Remote-Group', 'devs']);
    expect(authenticator.authenticate(req)).toBeUndefined();
    expect(req.headers).toEqual({});
  });
});
