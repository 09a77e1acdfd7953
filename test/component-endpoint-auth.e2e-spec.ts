// The controller manager's and scheduler's HTTPS endpoints decide who may call as Kubernetes'
// components do: a bearer token is checked with a TokenReview and each path outside
// --authorization-always-allow-paths with a SubjectAccessReview, both asked of the API server through
// --authentication-svcconfig and --authorization-svcconfig. /metrics is for whoever RBAC allows.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeIdentityConnectionFile } from '@svc/apiserver';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import type { ComponentProcess } from './support/component-process';
import { startControllerManagerProcess } from './support/controller-manager-process';
import { httpsFetch } from './support/https-client';
import { kubectl } from './support/kubectl-run';
import { startSchedulerProcess } from './support/scheduler-process';

let dir: string;
let server: ApiServerProcess;
const components: Record<string, ComponentProcess> = {};
let accountToken = '';
const insecure = new Agent({ rejectUnauthorized: false });

async function call(component: string, path: string, token?: string): Promise<{ status: number; body: string }> {
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  const res = await httpsFetch(`https://127.0.0.1:${components[component].port}${path}`, { agent: insecure, headers });
  return { status: res.status, body: res.body };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-endpoint-auth-e2e-'));
  const saKey = join(dir, 'sa.key');
  await writeFile(saKey, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
  await writeFile(join(dir, 'tokens.csv'), 'prometheus-token,prometheus,uid-prom,system:monitoring\nbob-token,bob,uid-bob\n');
  server = await startApiServerProcess({
    args: [
      '--authorization-mode=RBAC',
      `--token-auth-file=${join(dir, 'tokens.csv')}`,
      `--service-account-signing-key-file=${saKey}`,
      `--service-account-key-file=${saKey}`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    ],
  });
  const certDir = join(server.dir, 'certs');
  const identities = { cm: join(dir, 'cm.svcconfig'), scheduler: join(dir, 'scheduler.svcconfig') };
  await writeIdentityConnectionFile({ connectionFile: server.kubeconfig, certDir, path: identities.cm, user: 'system:kube-controller-manager' });
  await writeIdentityConnectionFile({ connectionFile: server.kubeconfig, certDir, path: identities.scheduler, user: 'system:kube-scheduler' });
  const delegated = (file: string) => [`--svcconfig=${file}`, `--authentication-svcconfig=${file}`, `--authorization-svcconfig=${file}`];
  [components.cm, components.scheduler] = await Promise.all([
    startControllerManagerProcess(server, [...delegated(identities.cm), '--controllers=serviceaccount'], 60_000),
    startSchedulerProcess(server, delegated(identities.scheduler), 60_000),
  ]);
  // A ServiceAccount given the monitoring role, with a token from the TokenRequest API.
  const env = server.kubectlEnv;
  await kubectl(['create', 'serviceaccount', 'scraper'], env);
  await kubectl(['create', 'clusterrolebinding', 'scraper-monitoring', '--clusterrole=system:monitoring', '--serviceaccount=default:scraper'], env);
  accountToken = (await kubectl(['create', 'token', 'scraper'], env)).stdout.trim();
}, 150_000);

afterAll(async () => {
  await Promise.all(Object.values(components).map((c) => c.stop()));
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe.each(['cm', 'scheduler'])('the %s endpoint', (component) => {
  it('serves /metrics to system:monitoring, by group or by binding of a ServiceAccount', async () => {
    const byGroup = await call(component, '/metrics', 'prometheus-token');
    expect(byGroup.status).toBe(200);
    expect(byGroup.body).toContain('# TYPE');
    expect((await call(component, '/metrics', accountToken)).status).toBe(200);
  });

  it('forbids /metrics to others with a Status naming them, and refuses a bad token with 401 everywhere', async () => {
    const bob = await call(component, '/metrics', 'bob-token');
    expect(bob.status).toBe(403);
    expect(JSON.parse(bob.body)).toMatchObject({
      kind: 'Status',
      reason: 'Forbidden',
      code: 403,
      message: expect.stringMatching(/^forbidden: User "bob" cannot get path "\/metrics"/),
    });
    const anonymous = await call(component, '/metrics');
    expect(anonymous.status).toBe(403);
    expect(JSON.parse(anonymous.body).message).toMatch(/^forbidden: User "system:anonymous" cannot get path "\/metrics"/);
    for (const path of ['/metrics', '/healthz']) {
      const forged = await call(component, path, 'forged-token');
      expect(forged.status).toBe(401);
      expect(JSON.parse(forged.body)).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    }
  });

  it('serves the always-allowed health paths to anyone', async () => {
    expect((await call(component, '/healthz')).status).toBe(200);
    expect((await call(component, '/readyz', 'bob-token')).status).toBe(200);
    expect((await call(component, '/livez')).status).toBe(200);
    // Not on the list: asked of the API server, and bob holds no rule for it.
    expect((await call(component, '/healthz/ping', 'bob-token')).status).toBe(403);
  });
});
