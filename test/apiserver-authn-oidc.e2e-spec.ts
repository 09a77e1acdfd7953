import { execFile } from 'node:child_process';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { exportJWK, SignJWT, type JWK, type JWTPayload } from 'jose';
import { ensureServingCertificates } from '@svc/apiserver';
import { eventually } from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import { KubectlIdentities } from './support/kubectl-identities';
import { kubectl, runKubectl } from './support/kubectl-run';

// OIDC as a user meets it: an identity provider the test serves itself on loopback (HTTPS with a CA of
// its own, given to the server as --oidc-ca-file), tokens it signs presented with kubectl --token and curl.

const run = promisify(execFile);

interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  jwk: JWK;
}

let server: ApiServerProcess;
let issuer: Server;
let issuerUrl: string;
let dir: string;
let kubeconfigFile: string;
let key: SigningKey;
let published: SigningKey[];
const issuerRequests: string[] = [];

async function signingKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

function idToken(claims: JWTPayload = {}, signer: SigningKey = key, kid = signer.kid): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    iss: issuerUrl,
    aud: 'svc-cluster',
    sub: 'alice-sub',
    email: 'alice@example.com',
    groups: ['devs', 'qa'],
    tenant: 'blue',
    iat: now,
    exp: now + 600,
    ...claims,
  })
    .setProtectedHeader({ alg: 'RS256', kid })
    .sign(signer.privateKey);
}

/** kubectl with a connection file that carries no credential of its own, and `--token`. */
function kubectlWithToken(token: string, ...args: string[]) {
  return runKubectl([`--token=${token}`, ...args], { KUBECONFIG: kubeconfigFile, HOME: server.dir });
}

async function curl(path: string, token: string): Promise<{ code: number; body: Record<string, unknown> }> {
  const { stdout } = await run('curl', [
    '-s',
    '--cacert',
    join(dir, 'serving-ca.crt'),
    '-w',
    '\n%{http_code}',
    '-H',
    `Authorization: Bearer ${token}`,
    `${server.url}${path}`,
  ]);
  const at = stdout.lastIndexOf('\n');
  return { code: Number(stdout.slice(at + 1)), body: JSON.parse(stdout.slice(0, at)) as Record<string, unknown> };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-oidc-e2e-'));
  key = await signingKey('key-1');
  published = [key];
  const tls = await ensureServingCertificates({ certDir: join(dir, 'issuer-certs'), bindAddress: '127.0.0.1' });
  issuer = createServer({ cert: tls.certPem, key: tls.keyPem }, (req, res) => {
    issuerRequests.push(req.url ?? '');
    res.setHeader('Content-Type', 'application/json');
    if (req.url === '/.well-known/openid-configuration') {
      res.end(JSON.stringify({ issuer: issuerUrl, jwks_uri: `${issuerUrl}/keys`, id_token_signing_alg_values_supported: ['RS256'] }));
    } else if (req.url === '/keys') {
      res.end(JSON.stringify({ keys: published.map((k) => k.jwk) }));
    } else {
      res.statusCode = 404;
      res.end('{}');
    }
  });
  await new Promise<void>((resolve) => issuer.listen(0, '127.0.0.1', resolve));
  issuerUrl = `https://127.0.0.1:${(issuer.address() as AddressInfo).port}`;
  await writeFile(join(dir, 'issuer-ca.crt'), tls.caPem!);

  server = await startApiServerProcess({
    args: [
      '--authorization-mode=RBAC',
      `--oidc-issuer-url=${issuerUrl}`,
      '--oidc-client-id=svc-cluster',
      `--oidc-ca-file=${join(dir, 'issuer-ca.crt')}`,
      '--oidc-username-prefix=oidc:',
      '--oidc-groups-claim=groups',
      '--oidc-groups-prefix=oidc:',
      '--oidc-required-claim=tenant=blue',
    ],
  });
  await writeFile(join(dir, 'serving-ca.crt'), server.ca);
  // No credential of its own: each call brings its token.
  kubeconfigFile = await new KubectlIdentities(server, dir).withUser('token', {});
  await kubectl(['create', 'clusterrolebinding', 'oidc-devs-view', '--clusterrole=view', '--group=oidc:devs'], server.kubectlEnv);
}, 90_000);

afterAll(async () => {
  await server?.stop();
  await new Promise((resolve) => (issuer ? issuer.close(resolve) : resolve(undefined)));
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('OIDC tokens', () => {
  it('fetched the discovery document and the key set from the issuer over its own CA', async () => {
    await eventually(async () => expect(issuerRequests).toEqual(expect.arrayContaining(['/.well-known/openid-configuration', '/keys'])));
  });

  it('authenticate a good token as the prefixed user and groups (kubectl auth whoami)', async () => {
    const res = await kubectlWithToken(await idToken(), 'auth', 'whoami', '-o', 'json');
    expect(res.stderr).toBe('');
    const review = JSON.parse(res.stdout) as { status: { userInfo: { username: string; groups: string[] } } };
    expect(review.status.userInfo).toEqual({ username: 'oidc:alice-sub', groups: ['oidc:devs', 'oidc:qa', 'system:authenticated'] });
  });

  it('grant what the prefixed group is bound to under RBAC', async () => {
    const token = await idToken();
    await eventually(async () => expect((await kubectlWithToken(token, 'get', 'pods', '-n', 'default')).code).toBe(0));
    const write = await kubectlWithToken(token, 'create', 'configmap', 'c', '-n', 'default');
    expect(write.stderr).toContain('configmaps is forbidden: User "oidc:alice-sub" cannot create resource "configmaps"');
  });

  it.each<[string, () => Promise<string>]>([
    ['a bad signature', async () => idToken({}, await signingKey('other'), 'key-1')],
    ['an expired token', () => idToken({ exp: Math.floor(Date.now() / 1000) - 60 })],
    ['a token for another audience', () => idToken({ aud: 'someone-else' })],
    ['a token without the required claim', () => idToken({ tenant: undefined })],
    ['a token with another value of the required claim', () => idToken({ tenant: 'red' })],
    ['a token naming a key the issuer never published', async () => idToken({}, await signingKey('unknown'))],
  ])('refuse %s with a 401 Status, never anonymous', async (_, make) => {
    const token = await make();
    const answer = await curl('/version', token);
    expect(answer.code).toBe(401);
    expect(answer.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 });
    const res = await kubectlWithToken(token, 'get', 'pods');
    expect(res.code).not.toBe(0);
    // kubectl's words for a 401 (on discovery, or on the request itself).
    expect(res.stderr).toMatch(/You must be logged in to the server \(Unauthorized\)|the server has asked for the client to provide credentials/);
  });

  it('follow the issuer when it rotates its signing key', async () => {
    const rotated = await signingKey('key-2');
    published = [rotated];
    const token = await idToken({}, rotated);
    // The key set is fetched again for an unknown key id, at most every 10 s.
    await eventually(async () => expect((await curl('/version', token)).code).toBe(200), 30_000, 1_000);
    expect((await kubectlWithToken(token, 'auth', 'whoami')).stdout).toMatch(/Username\s+oidc:alice-sub/);
  }, 45_000);
});
