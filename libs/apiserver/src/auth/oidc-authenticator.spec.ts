import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { exportJWK, SignJWT, type JWK, type JWTPayload } from 'jose';
import { IssuerKeys } from './issuer-keys';
import { defaultUsernamePrefix, OidcAuthenticator, type OidcOptions } from './oidc-authenticator';

const ISSUER = 'https://issuer.example';
const NOW = 1_800_000_000_000;

interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  jwk: JWK;
}

async function rsaKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

function sign(key: SigningKey, claims: JWTPayload, alg = 'RS256'): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg, kid: key.kid }).sign(key.privateKey);
}

function goodClaims(extra: JWTPayload = {}): JWTPayload {
  return { iss: ISSUER, aud: 'kube', sub: 'u-1', exp: NOW / 1000 + 600, iat: NOW / 1000, ...extra };
}

describe('OidcAuthenticator', () => {
  let key: SigningKey;
  let published: JWK[];
  let fetches: string[];
  let clock: number;

  function authenticator(options: Partial<OidcOptions> = {}, apiAudiences: string[] = []): OidcAuthenticator {
    const keys = new IssuerKeys(ISSUER, {
      now: () => clock,
      fetchJson: async (url) => {
        fetches.push(url);
        if (url === `${ISSUER}/.well-known/openid-configuration`) return { issuer: ISSUER, jwks_uri: `${ISSUER}/keys` };
        if (url === `${ISSUER}/keys`) return { keys: published };
        throw new Error(`unexpected ${url}`);
      },
    });
    return new OidcAuthenticator({ issuerUrl: ISSUER, clientId: 'kube', ...options }, keys, apiAudiences, () => clock);
  }

  beforeAll(async () => {
    key = await rsaKey('k1');
  });

  beforeEach(() => {
    published = [key.jwk];
    fetches = [];
    clock = NOW;
  });

  it('accepts a good token as the prefixed username claim with the prefixed groups', async () => {
    const auth = authenticator({ groupsClaim: 'groups', groupsPrefix: 'oidc:' });
    const outcome = await auth.authenticateToken(await sign(key, goodClaims({ groups: ['dev', 'ops'] })));
    expect(outcome).toEqual({ user: { name: `${ISSUER}#u-1`, groups: ['oidc:dev', 'oidc:ops'] } });
  });

  it('takes a single string as one group', async () => {
    const auth = authenticator({ groupsClaim: 'groups' });
    expect(await auth.authenticateToken(await sign(key, goodClaims({ groups: 'dev' })))).toMatchObject({ user: { groups: ['dev'] } });
  });

  it('leaves tokens of other issuers and non-JWTs to the other authenticators', async () => {
    const auth = authenticator();
    expect(await auth.authenticateToken(await sign(key, goodClaims({ iss: 'https://other.example' })))).toBeUndefined();
    expect(await auth.authenticateToken('opaque-token')).toBeUndefined();
  });

  it.each<[string, JWTPayload]>([
    ['wrong audience', { aud: 'someone-else' }],
    ['expired', { exp: NOW / 1000 - 1 }],
    ['no expiry', { exp: undefined }],
    ['not yet valid', { nbf: NOW / 1000 + 3600 }],
    ['no username claim', { sub: undefined }],
  ])('refuses a token: %s', async (_, claims) => {
    const outcome = await authenticator().authenticateToken(await sign(key, goodClaims(claims)));
    expect(outcome).toHaveProperty('error');
  });

  it('allows an issuer clock a little ahead for nbf', async () => {
    const outcome = await authenticator().authenticateToken(await sign(key, goodClaims({ nbf: NOW / 1000 + 60 })));
    expect(outcome).toHaveProperty('user');
  });

  it('refuses a bad signature and an algorithm not allowed', async () => {
    const other = await rsaKey('k1');
    expect(await authenticator().authenticateToken(await sign(other, goodClaims()))).toEqual({ error: expect.stringMatching(/signature verification failed/) });
    const auth = authenticator({ signingAlgs: ['ES256'] });
    expect(await auth.authenticateToken(await sign(key, goodClaims()))).toEqual({ error: expect.stringMatching(/not allowed/) });
  });

  it('requires each required claim with its value', async () => {
    const auth = authenticator({ requiredClaims: { hd: 'example.com' } });
    expect(await auth.authenticateToken(await sign(key, goodClaims({ hd: 'example.com' })))).toHaveProperty('user');
    expect(await auth.authenticateToken(await sign(key, goodClaims({ hd: 'evil.com' })))).toHaveProperty('error');
    expect(await auth.authenticateToken(await sign(key, goodClaims()))).toEqual({ error: 'oidc: required claim hd not present in ID token' });
  });

  it('uses the email claim unprefixed and only when verified', async () => {
    const auth = authenticator({ usernameClaim: 'email' });
    expect(await auth.authenticateToken(await sign(key, goodClaims({ email: 'a@example.com', email_verified: true })))).toMatchObject({
      user: { name: 'a@example.com' },
    });
    expect(await auth.authenticateToken(await sign(key, goodClaims({ email: 'a@example.com' })))).toMatchObject({ user: { name: 'a@example.com' } });
    expect(await auth.authenticateToken(await sign(key, goodClaims({ email: 'a@example.com', email_verified: false })))).toEqual({
      error: 'oidc: email not verified',
    });
  });

  it('fetches the keys again for an unknown key id, at most once per interval', async () => {
    const auth = authenticator();
    expect(await auth.authenticateToken(await sign(key, goodClaims()))).toHaveProperty('user');
    expect(fetches).toHaveLength(2);
    const rotated = await rsaKey('k2');
    published = [rotated.jwk];
    const token = await sign(rotated, goodClaims({ exp: NOW / 1000 + 3600 }));
    // Within the interval of the first fetch the new key is not looked for: a flood of unknown key ids costs nothing.
    expect(await auth.authenticateToken(token)).toHaveProperty('error');
    expect(await auth.authenticateToken(token)).toHaveProperty('error');
    expect(fetches).toHaveLength(2);
    clock += 11_000;
    expect(await auth.authenticateToken(token)).toHaveProperty('user');
    expect(fetches).toEqual([`${ISSUER}/.well-known/openid-configuration`, `${ISSUER}/keys`, `${ISSUER}/keys`]);
  });

  it('refuses every token while the issuer has not been reached', async () => {
    const keys = new IssuerKeys(ISSUER, { now: () => clock, fetchJson: () => Promise.reject(new Error('connect ECONNREFUSED')) });
    const auth = new OidcAuthenticator({ issuerUrl: ISSUER, clientId: 'kube' }, keys, [], () => clock);
    expect(await auth.authenticateToken(await sign(key, goodClaims()))).toEqual({ error: expect.stringMatching(/not initialized: connect ECONNREFUSED/) });
  });

  it('refuses a discovery document naming another issuer', async () => {
    const keys = new IssuerKeys(ISSUER, { fetchJson: async () => ({ issuer: 'https://evil.example', jwks_uri: 'https://evil.example/keys' }) });
    const auth = new OidcAuthenticator({ issuerUrl: ISSUER, clientId: 'kube' }, keys, [], () => clock);
    expect(await auth.authenticateToken(await sign(key, goodClaims()))).toEqual({ error: expect.stringMatching(/issuer did not match/) });
  });

  it('answers a TokenReview for audiences only when they are the server’s own', async () => {
    const auth = authenticator({}, ['https://kubernetes.default.svc']);
    const token = await sign(key, goodClaims());
    expect(await auth.authenticateToken(token, ['vault'])).toBeUndefined();
    expect(await auth.authenticateToken(token, ['https://kubernetes.default.svc', 'vault'])).toMatchObject({ audiences: ['https://kubernetes.default.svc'] });
  });

  it('prefixes usernames as Kubernetes does', () => {
    expect(defaultUsernamePrefix(ISSUER, 'sub', undefined)).toBe(`${ISSUER}#`);
    expect(defaultUsernamePrefix(ISSUER, 'email', undefined)).toBe('');
    expect(defaultUsernamePrefix(ISSUER, 'sub', '-')).toBe('');
    expect(defaultUsernamePrefix(ISSUER, 'email', 'corp:')).toBe('corp:');
  });
});
