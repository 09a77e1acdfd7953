import type { Secret } from '@svc/api';
import { BootstrapTokenAuthenticator } from './bootstrap-tokens';

const b64 = (s: string) => Buffer.from(s).toString('base64');

function tokenSecret(data: Record<string, string>, type = 'bootstrap.kubernetes.io/token'): Secret {
  const all = { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true', ...data };
  return {
    metadata: { name: 'bootstrap-token-abcdef', namespace: 'svc-system' },
    type,
    data: Object.fromEntries(Object.entries(all).map(([k, v]) => [k, b64(v)])),
  };
}

const NOW = Date.parse('2026-06-01T00:00:00Z');
const authenticator = (secret: Secret | undefined) =>
  new BootstrapTokenAuthenticator(
    async (name) => (name === secret?.metadata?.name ? secret : undefined),
    () => NOW,
  );

describe('bootstrap token authentication', () => {
  it('authenticates a token as system:bootstrap:<id> in system:bootstrappers and its extra groups, under both Secret types', async () => {
    for (const type of ['bootstrap.kubernetes.io/token', 'bootstrap.svc.io/token']) {
      expect(
        await authenticator(tokenSecret({ 'auth-extra-groups': 'system:bootstrappers:workers' }, type)).authenticateToken('abcdef.0123456789abcdef'),
      ).toEqual({
        user: { name: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:bootstrappers:workers'] },
      });
    }
  });

  it('leaves other tokens, wrong secrets and unusable Secrets to other authenticators, and refuses expired ones', async () => {
    const good = authenticator(tokenSecret({}));
    expect(await good.authenticateToken('not-a-bootstrap-token')).toBeUndefined();
    expect(await good.authenticateToken('abcdef.0123456789abcdee')).toBeUndefined();
    expect(await good.authenticateToken('ABCDEF.0123456789abcdef')).toBeUndefined();
    expect(await authenticator(tokenSecret({}, 'Opaque')).authenticateToken('abcdef.0123456789abcdef')).toBeUndefined();
    expect(await authenticator(tokenSecret({ 'usage-bootstrap-authentication': 'false' })).authenticateToken('abcdef.0123456789abcdef')).toBeUndefined();
    expect(await authenticator(tokenSecret({ expiration: '2026-05-31T23:59:59Z' })).authenticateToken('abcdef.0123456789abcdef')).toEqual({
      error: 'bootstrap token abcdef has expired',
    });
    expect(await authenticator(tokenSecret({ 'auth-extra-groups': 'system:masters' })).authenticateToken('abcdef.0123456789abcdef')).toMatchObject({
      error: expect.stringContaining('auth-extra-groups'),
    });
  });
});
