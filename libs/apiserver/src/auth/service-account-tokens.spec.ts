import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { eventually } from '@svc/runtime/testing';
import { startTestEnvironment, type TestEnvironment } from '../testing';
import { adminCall, httpsCall, type HttpsAnswer } from '../testing/https-call';
import { EXTENDED_TOKEN_SECONDS, ServiceAccountTokens } from './service-account-tokens';

const ISSUER = 'https://svc.example.test';

describe('service account tokens, in-process', () => {
  let env: TestEnvironment;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-sa-spec-'));
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const keyFile = join(dir, 'sa.key');
    await writeFile(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
    env = await startTestEnvironment({
      authentication: { serviceAccounts: { signingKeyFile: keyFile, issuers: [ISSUER], maxExpirationSeconds: 7200 } },
      authorization: { modes: ['RBAC'] },
    });
    await admin('POST', '/api/v1/namespaces', { metadata: { name: 'apps' } });
    expect((await admin('POST', '/api/v1/namespaces/apps/serviceaccounts', { metadata: { name: 'robot' } })).status).toBe(201);
    const pod = { metadata: { name: 'p' }, spec: { serviceAccountName: 'robot', containers: [{ name: 'c', image: 'nginx' }] } };
    expect((await admin('POST', '/api/v1/namespaces/apps/pods', pod)).status).toBe(201);
  });

  afterAll(async () => {
    await env?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  function admin(method: string, path: string, body?: unknown): Promise<HttpsAnswer> {
    return adminCall(env, method, path, body);
  }

  async function requestToken(spec: Record<string, unknown>): Promise<HttpsAnswer> {
    return admin('POST', '/api/v1/namespaces/apps/serviceaccounts/robot/token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec });
  }

  it('issues a token bound to a pod that authenticates as the service account until the pod is gone', async () => {
    const issued = await requestToken({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p' }, expirationSeconds: 3600 });
    expect(issued.status).toBe(201);
    const token = (issued.body.status as { token: string }).token;
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({ iss: ISSUER, aud: [ISSUER], sub: 'system:serviceaccount:apps:robot' });
    const whoami = await call(
      env,
      'POST',
      '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      { Authorization: `Bearer ${token}` },
      { kind: 'SelfSubjectReview' },
    );
    expect(whoami.status).toBe(201);
    const userInfo = (whoami.body.status as { userInfo: { username: string; groups: string[]; extra: Record<string, string[]> } }).userInfo;
    expect(userInfo.username).toBe('system:serviceaccount:apps:robot');
    expect(userInfo.groups).toEqual(['system:serviceaccounts', 'system:serviceaccounts:apps', 'system:authenticated']);
    expect(userInfo.extra['authentication.kubernetes.io/pod-name']).toEqual(['p']);
    // The token review answers the same.
    const review = await admin('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { kind: 'TokenReview', spec: { token } });
    expect(review.body.status).toMatchObject({ authenticated: true, user: { username: 'system:serviceaccount:apps:robot' }, audiences: [ISSUER] });
    expect((await admin('DELETE', '/api/v1/namespaces/apps/pods/p?gracePeriodSeconds=0')).status).toBe(200);
    await eventually(async () => expect((await call(env, 'GET', '/version', { Authorization: `Bearer ${token}` })).status).toBe(401));
  });

  it('caps and bounds lifetimes, and refuses unknown bound kinds and audiences it was not issued for', async () => {
    const capped = await requestToken({ expirationSeconds: 100_000 });
    expect((capped.body.spec as { expirationSeconds: number }).expirationSeconds).toBe(7200);
    expect((await requestToken({ expirationSeconds: 60 })).status).toBe(422);
    expect((await requestToken({ boundObjectRef: { kind: 'Node', name: 'n' } })).status).toBe(422);
    expect((await requestToken({ boundObjectRef: { kind: 'Pod', name: 'missing' } })).status).toBe(404);
    const other = await requestToken({ audiences: ['vault'] });
    const token = (other.body.status as { token: string }).token;
    // Not for this server's audience.
    expect((await call(env, 'GET', '/version', { Authorization: `Bearer ${token}` })).status).toBe(401);
    const review = await admin('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { kind: 'TokenReview', spec: { token, audiences: ['vault'] } });
    expect(review.body.status).toMatchObject({ authenticated: true, audiences: ['vault'] });
    // A tampered token is refused.
    const [h, p, s] = token.split('.');
    expect((await call(env, 'GET', '/version', { Authorization: `Bearer ${h}.${p}x.${s}` })).status).toBe(401);
  });

  it('serves the issuer discovery document and key set', async () => {
    const discovery = await admin('GET', '/.well-known/openid-configuration');
    expect(discovery.body).toMatchObject({ issuer: ISSUER, jwks_uri: `${ISSUER}/openid/v1/jwks`, id_token_signing_alg_values_supported: ['ES256'] });
    const jwks = await admin('GET', '/openid/v1/jwks');
    expect((jwks.body.keys as Array<Record<string, string>>)[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
  });

  it('refuses a token request from a caller without create on serviceaccounts/token', async () => {
    const answer = await call(env, 'POST', '/api/v1/namespaces/apps/serviceaccounts/robot/token', {}, { spec: {} });
    expect(answer.status).toBe(403);
    expect(answer.body.message).toBe(
      'serviceaccounts "robot" is forbidden: User "system:anonymous" cannot create resource "serviceaccounts/token" in API group "" in the namespace "apps"',
    );
  });
});

function call(
  env: TestEnvironment,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
  identity?: { cert: string; key: string },
): Promise<HttpsAnswer> {
  return httpsCall(env.url, env.clientConfig.ca!, method, path, headers, body, identity);
}

describe('service account token extension (--service-account-extend-token-expiration)', () => {
  let dir: string;
  let keyFile: string;
  const NOW = 1_800_000_000_000;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-sa-extend-'));
    keyFile = join(dir, 'sa.key');
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    await writeFile(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const tokens = (extendExpiration: boolean) =>
    new ServiceAccountTokens(
      { signingKeyFile: keyFile, issuers: [ISSUER], extendExpiration },
      async () => 'uid',
      () => NOW,
    );
  const request = (overrides: Partial<Parameters<ServiceAccountTokens['issue']>[0]> = {}) => ({
    namespace: 'apps',
    serviceAccount: { name: 'robot', uid: 'sa-uid' },
    expirationSeconds: 3607,
    bound: { kind: 'Pod' as const, name: 'p', uid: 'pod-uid' },
    ...overrides,
  });
  const lifetime = (token: string) => {
    const claims = decodeJwt(token);
    return { seconds: claims.exp! - claims.iat!, warnafter: (claims['kubernetes.io'] as { warnafter?: number }).warnafter };
  };

  it("keeps a pod's 3607 s API server token valid for a year, with warnafter at the time asked, and reports the time asked", async () => {
    const issued = await tokens(true).issue(request());
    const iat = NOW / 1000;
    expect(lifetime(issued.token)).toEqual({ seconds: EXTENDED_TOKEN_SECONDS, warnafter: iat + 3607 });
    expect(issued.expiresAt.getTime()).toBe(NOW + 3607 * 1000);
  });

  it('extends nothing else: off, another lifetime, another audience, a Secret or no bound object', async () => {
    const plain = { seconds: 3607, warnafter: undefined };
    expect(lifetime((await tokens(false).issue(request())).token)).toEqual(plain);
    expect(lifetime((await tokens(true).issue(request({ expirationSeconds: 3600 }))).token)).toEqual({ seconds: 3600, warnafter: undefined });
    expect(lifetime((await tokens(true).issue(request({ audiences: ['vault'] }))).token)).toEqual(plain);
    expect(lifetime((await tokens(true).issue(request({ bound: { kind: 'Secret', name: 's', uid: 's-uid' } }))).token)).toEqual(plain);
    expect(lifetime((await tokens(true).issue(request({ bound: undefined }))).token)).toEqual(plain);
  });
});
