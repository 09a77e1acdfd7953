import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { ensureServingCertificates } from '@svc/apiserver';
import { httpsCall } from '@svc/apiserver/testing';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import { KubectlIdentities } from './support/kubectl-identities';
import { runKubectl } from './support/kubectl-run';

// The token webhook as an operator configures it: a kubeconfig-format file naming a TokenReview endpoint
// the test serves itself on loopback (HTTPS with a CA of its own, and a token the server must present).

let server: ApiServerProcess;
let webhook: Server;
let dir: string;
const reviews: Array<{ apiVersion: string; authorization?: string; token: string }> = [];

const USERS: Record<string, { username: string; uid: string; groups: string[] }> = {
  'jane-token': { username: 'jane', uid: 'uid-jane', groups: ['devs'] },
  'kim-token': { username: 'kim', uid: 'uid-kim', groups: [] },
};

function get(path: string, token: string) {
  return httpsCall(server.url, server.ca, 'GET', path, { Authorization: `Bearer ${token}` });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-token-webhook-e2e-'));
  const tls = await ensureServingCertificates({ certDir: join(dir, 'webhook-certs'), bindAddress: '127.0.0.1' });
  webhook = createServer({ cert: tls.certPem, key: tls.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { apiVersion: string; spec: { token: string } };
      reviews.push({ apiVersion: review.apiVersion, authorization: req.headers.authorization, token: review.spec.token });
      if (review.spec.token === 'broken-token') {
        res.statusCode = 500;
        return res.end('{}');
      }
      const user = req.headers.authorization === 'Bearer webhook-secret' ? USERS[review.spec.token] : undefined;
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'TokenReview', status: user ? { authenticated: true, user } : { authenticated: false } }));
    });
  });
  await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(webhook.address() as AddressInfo).port}/authenticate`;
  const config = join(dir, 'token-webhook.kubeconfig');
  await writeFile(
    config,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'webhook', cluster: { server: url, 'certificate-authority-data': Buffer.from(tls.caPem!).toString('base64') } }],
      users: [{ name: 'apiserver', user: { token: 'webhook-secret' } }],
      contexts: [{ name: 'webhook', context: { cluster: 'webhook', user: 'apiserver' } }],
      'current-context': 'webhook',
    }),
    { mode: 0o600 },
  );
  server = await startApiServerProcess({
    args: [
      '--authorization-mode=RBAC',
      `--authentication-token-webhook-config-file=${config}`,
      '--authentication-token-webhook-version=v1',
      '--authentication-token-webhook-cache-ttl=1m',
    ],
  });
  // No credential of its own: each call brings its token.
  await new KubectlIdentities(server, dir).withUser('token', {});
}, 90_000);

afterAll(async () => {
  await server?.stop();
  await new Promise((resolve) => (webhook ? webhook.close(resolve) : resolve(undefined)));
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('token webhook', () => {
  it('authenticates a token the webhook vouches for (kubectl --token auth whoami)', async () => {
    const res = await runKubectl(['--token=jane-token', 'auth', 'whoami', '-o', 'json'], { KUBECONFIG: join(dir, 'token.kubeconfig'), HOME: server.dir });
    expect(res.stderr).toBe('');
    const review = JSON.parse(res.stdout) as { status: { userInfo: Record<string, unknown> } };
    expect(review.status.userInfo).toEqual({ username: 'jane', uid: 'uid-jane', groups: ['devs', 'system:authenticated'] });
    expect(reviews.find((r) => r.token === 'jane-token')).toEqual({
      apiVersion: 'authentication.k8s.io/v1',
      authorization: 'Bearer webhook-secret',
      token: 'jane-token',
    });
  });

  it('asks the webhook once per token within the cache TTL', async () => {
    expect((await get('/version', 'kim-token')).status).toBe(200);
    expect((await get('/version', 'kim-token')).status).toBe(200);
    expect(reviews.filter((r) => r.token === 'kim-token')).toHaveLength(1);
  });

  it.each(['unknown-token', 'broken-token'])('answers 401 with a Status to %s, never anonymous', async (token) => {
    const answer = await get('/version', token);
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 });
  });
});
