import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { eventually } from '@svc/runtime/testing';
import { startTestEnvironment, type TestEnvironment } from '../testing';
import { httpsCall, type HttpsAnswer } from '../testing/https-call';

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
    return call(env, method, path, {}, body, { cert: env.clientConfig.clientCert!, key: env.clientConfig.clientKey! });
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
