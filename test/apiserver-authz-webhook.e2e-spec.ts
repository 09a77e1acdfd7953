import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { ensureServingCertificates } from '@svc/apiserver';
import { eventually } from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import { KubectlIdentities } from './support/kubectl-identities';

// The Webhook authorization mode: svc-apiserver with `Webhook,RBAC` asks a SubjectAccessReview
// service this test serves on loopback over HTTPS, then RBAC when the webhook has no opinion.

let server: ApiServerProcess;
let webhook: Server;
let dir: string;
let failing = false;
const reviews: Array<{ authorization?: string; review: { apiVersion?: string; spec?: Record<string, unknown> } }> = [];
let as: KubectlIdentities;
const kubectl = (who: string, ...args: string[]) => as.run(who, ...args);
const kubectlFails = (who: string, ...args: string[]) => as.fails(who, ...args);

/** The test's policy: wh-allowed may do anything, wh-denied nothing; everyone else is left to RBAC. */
function decide(user: unknown): Record<string, unknown> {
  if (user === 'wh-allowed') return { allowed: true, reason: 'allowed by test policy' };
  if (user === 'wh-denied') return { allowed: false, denied: true, reason: 'denied by test policy' };
  return { allowed: false };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-authz-webhook-e2e-'));
  const certs = await ensureServingCertificates({ certDir: join(dir, 'webhook-certs'), bindAddress: '127.0.0.1' });
  webhook = createServer({ key: certs.keyPem, cert: certs.certPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (failing) return res.writeHead(500).end('down for the test');
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { apiVersion?: string; spec?: Record<string, unknown> };
      reviews.push({ authorization: req.headers.authorization, review });
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'SubjectAccessReview', status: decide(review.spec?.user) }));
    });
  });
  await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
  const port = (webhook.address() as AddressInfo).port;
  const webhookConfig = join(dir, 'authz-webhook.kubeconfig');
  await writeFile(
    webhookConfig,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'authz',
          cluster: { server: `https://127.0.0.1:${port}/authorize`, 'certificate-authority-data': Buffer.from(certs.caPem!).toString('base64') },
        },
      ],
      users: [{ name: 'apiserver', user: { token: 'apiserver-to-webhook' } }],
      contexts: [{ name: 'authz', context: { cluster: 'authz', user: 'apiserver' } }],
      'current-context': 'authz',
    }),
  );
  const users = ['wh-allowed', 'wh-denied', 'plain', 'rbac-user', 'stranger'];
  await writeFile(join(dir, 'tokens.csv'), users.map((u) => `${u}-token,${u},uid-${u}`).join('\n') + '\n');
  server = await startApiServerProcess({
    args: [
      '--authorization-mode=Webhook,RBAC',
      `--authorization-webhook-config-file=${webhookConfig}`,
      '--authorization-webhook-version=v1',
      `--token-auth-file=${join(dir, 'tokens.csv')}`,
    ],
  });
  as = new KubectlIdentities(server, dir);
  for (const user of users) await as.withUser(user, { token: `${user}-token` });
}, 90_000);

afterAll(async () => {
  await server?.stop();
  await new Promise((resolve) => (webhook ? webhook.close(resolve) : resolve(undefined)));
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the Webhook authorizer', () => {
  it('allows what the webhook allows, having sent it a SubjectAccessReview with its credentials', async () => {
    expect(await kubectl('wh-allowed', 'get', 'pods', '-n', 'kube-system', '-o', 'name')).toBe('');
    const seen = reviews.find((r) => r.review.spec?.user === 'wh-allowed' && (r.review.spec.resourceAttributes as { resource?: string })?.resource === 'pods');
    expect(seen).toMatchObject({
      authorization: 'Bearer apiserver-to-webhook',
      review: {
        apiVersion: 'authorization.k8s.io/v1',
        spec: {
          user: 'wh-allowed',
          uid: 'uid-wh-allowed',
          groups: ['system:authenticated'],
          resourceAttributes: { namespace: 'kube-system', verb: 'list', group: '', version: 'v1', resource: 'pods' },
        },
      },
    });
  });

  it('denies what the webhook denies, even when RBAC would allow', async () => {
    await kubectl('admin', 'create', 'clusterrolebinding', 'denied-admin', '--clusterrole=cluster-admin', '--user=wh-denied');
    const refused = await kubectlFails('wh-denied', 'get', 'pods', '-n', 'default');
    expect(refused.stderr).toContain(
      'Error from server (Forbidden): pods is forbidden: User "wh-denied" cannot list resource "pods" in API group "" in the namespace "default": denied by test policy',
    );
  });

  it('leaves requests it has no opinion on to RBAC', async () => {
    await kubectl('admin', 'create', 'rolebinding', 'plain-view', '--clusterrole=view', '--user=plain', '-n', 'default');
    await eventually(async () => expect(await kubectl('plain', 'get', 'pods', '-n', 'default', '-o', 'name')).toBe(''));
    expect((await kubectlFails('plain', 'get', 'pods', '-n', 'kube-system')).stderr).toContain(
      'pods is forbidden: User "plain" cannot list resource "pods" in API group "" in the namespace "kube-system"',
    );
  });

  it('when the webhook fails: RBAC still decides, cached answers stand, and otherwise the request fails with an internal error', async () => {
    await kubectl('admin', 'create', 'rolebinding', 'rbac-view', '--clusterrole=view', '--user=rbac-user', '-n', 'default');
    await eventually(async () => expect(await kubectl('admin', 'auth', 'can-i', 'list', 'pods', '-n', 'default', '--as=rbac-user')).toContain('yes'));
    failing = true;
    try {
      // Not asked before, so not cached: the failed webhook has no opinion and RBAC allows.
      expect(await kubectl('rbac-user', 'get', 'configmaps', '-n', 'default', '-o', 'name')).toBe('');
      // Answered within the authorized TTL (5 minutes by default) from the cache.
      expect(await kubectl('wh-allowed', 'get', 'pods', '-n', 'kube-system', '-o', 'name')).toBe('');
      const failed = await kubectlFails('stranger', 'get', 'pods', '-n', 'default');
      expect(failed.stderr).toContain('Error from server (InternalError): Internal error occurred: webhook authorizer: the webhook answered 500');
    } finally {
      failing = false;
    }
  }, 60_000);
});
