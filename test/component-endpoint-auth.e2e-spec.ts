// The controller manager's and scheduler's HTTPS endpoints decide who may call as Kubernetes'
// components do: a bearer token is checked with a TokenReview and each path outside
// --authorization-always-allow-paths with a SubjectAccessReview, both asked of the API server through
// --authentication-svcconfig and --authorization-svcconfig. /metrics is for whoever RBAC allows.
// Client certificates (--client-ca-file) and a front proxy (--requestheader-*) authenticate too; what
// the flags leave out is read from the ConfigMap the API server publishes, unless lookup is skipped.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent } from 'node:https';
import { connect as tlsConnect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureClientCa, issueClientCertificate, writeIdentityConnectionFile, type CertificateAuthority } from '@svc/apiserver';
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

/** A call with a client certificate issued by `ca` for `user` in `groups`, with extra headers. */
async function callAs(
  component: string,
  path: string,
  ca: Pick<CertificateAuthority, 'certPem' | 'keyPem'>,
  user: string,
  groups: string[] = [],
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const issued = await issueClientCertificate(ca, user, groups);
  const agent = new Agent({ rejectUnauthorized: false, cert: issued.certPem, key: issued.keyPem });
  try {
    const res = await httpsFetch(`https://127.0.0.1:${components[component].port}${path}`, { agent, headers });
    return { status: res.status, body: res.body };
  } finally {
    agent.destroy();
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-endpoint-auth-e2e-'));
  await writeFile(join(dir, 'tokens.csv'), 'prometheus-token,prometheus,uid-prom,system:monitoring\nbob-token,bob,uid-bob\n');
  server = await startApiServerProcess({
    serviceAccountTokens: true,
    args: ['--authorization-mode=RBAC', `--token-auth-file=${join(dir, 'tokens.csv')}`],
  });
  const certDir = join(server.dir, 'certs');
  const identities = { cm: join(dir, 'cm.svcconfig'), scheduler: join(dir, 'scheduler.svcconfig') };
  await writeIdentityConnectionFile({ connectionFile: server.kubeconfig, certDir, path: identities.cm, user: 'system:kube-controller-manager' });
  await writeIdentityConnectionFile({ connectionFile: server.kubeconfig, certDir, path: identities.scheduler, user: 'system:kube-scheduler' });
  const delegated = (file: string) => [`--svcconfig=${file}`, `--authentication-svcconfig=${file}`, `--authorization-svcconfig=${file}`];
  [components.cm, components.scheduler] = await Promise.all([
    startControllerManagerProcess(server, [...delegated(identities.cm), '--controllers=serviceaccount'], 60_000),
    startSchedulerProcess(server, [...delegated(identities.scheduler), '--tls-min-version=VersionTLS13'], 60_000),
  ]);
  // A ServiceAccount given the monitoring role, with a token from the TokenRequest API.
  const env = server.kubectlEnv;
  await kubectl(['create', 'serviceaccount', 'scraper'], env);
  await kubectl(['create', 'clusterrolebinding', 'scraper-monitoring', '--clusterrole=system:monitoring', '--serviceaccount=default:scraper'], env);
  accountToken = (await kubectl(['create', 'token', 'scraper'], env)).stdout.trim();
  await kubectl(['create', 'clusterrole', 'profiler', '--verb=get', '--non-resource-url=/debug/*'], env);
  await kubectl(['create', 'clusterrolebinding', 'bob-profiler', '--clusterrole=profiler', '--user=bob'], env);
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

  it('serves /debug/pprof/ (--profiling, on by default) to callers allowed the path, and forbids it to others', async () => {
    expect((await call(component, '/debug/pprof/', 'prometheus-token')).status).toBe(403);
    const index = await call(component, '/debug/pprof/', 'bob-token');
    expect(index.status).toBe(200);
    expect(index.body).toContain('profile');
    expect((await call(component, '/debug/pprof/profile?seconds=0', 'bob-token')).status).toBe(400);
  });

  it('serves the always-allowed health paths to anyone', async () => {
    expect((await call(component, '/healthz')).status).toBe(200);
    expect((await call(component, '/readyz', 'bob-token')).status).toBe(200);
    expect((await call(component, '/livez')).status).toBe(200);
    // Not on the list: asked of the API server, and bob holds no rule for it.
    expect((await call(component, '/healthz/ping', 'bob-token')).status).toBe(403);
  });
});

function handshake(component: string, maxVersion?: 'TLSv1.2', ciphers?: string): Promise<{ protocol: string | null; cipher: string }> {
  return new Promise((resolve, reject) => {
    const options = {
      host: '127.0.0.1',
      port: components[component].port,
      rejectUnauthorized: false,
      ...(maxVersion ? { maxVersion } : {}),
      ...(ciphers ? { ciphers } : {}),
    };
    const socket = tlsConnect(options, () => {
      const result = { protocol: socket.getProtocol(), cipher: socket.getCipher().name };
      socket.end();
      resolve(result);
    });
    socket.on('error', reject);
  });
}

it('--tls-min-version: the scheduler started with VersionTLS13 refuses a TLS 1.2 client', async () => {
  await expect(handshake('scheduler', 'TLSv1.2')).rejects.toThrow();
  await expect(handshake('scheduler')).resolves.toMatchObject({ protocol: 'TLSv1.3' });
  await expect(handshake('cm', 'TLSv1.2')).resolves.toMatchObject({ protocol: 'TLSv1.2' });
});

describe('client certificates and a front proxy', () => {
  let userCa: CertificateAuthority;
  let proxyCa: CertificateAuthority;
  let strangerCa: CertificateAuthority;

  beforeAll(async () => {
    [userCa, proxyCa, strangerCa] = await Promise.all(['user-ca', 'proxy-ca', 'stranger-ca'].map((name) => ensureClientCa(join(dir, name))));
    components.flags = await startControllerManagerProcess(
      server,
      [
        `--svcconfig=${join(dir, 'cm.svcconfig')}`,
        `--authorization-svcconfig=${join(dir, 'cm.svcconfig')}`,
        `--client-ca-file=${userCa.certFile}`,
        `--requestheader-client-ca-file=${proxyCa.certFile}`,
        '--requestheader-allowed-names=front-proxy',
        '--authentication-skip-lookup',
        '--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
        '--controllers=serviceaccount',
      ],
      60_000,
    );
  }, 90_000);

  it('--tls-cipher-suites: a TLS 1.2 client gets a listed suite; TLS 1.3 stays on, as in Go', async () => {
    expect((await handshake('flags', 'TLSv1.2')).cipher).toMatch(/^ECDHE-(RSA|ECDSA)-AES128-GCM-SHA256$/);
    const unlisted = 'ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES256-GCM-SHA384';
    await expect(handshake('flags', 'TLSv1.2', unlisted)).rejects.toThrow();
    expect((await handshake('cm', 'TLSv1.2', unlisted)).cipher).toMatch(/AES256-GCM-SHA384$/);
    expect((await handshake('flags')).protocol).toBe('TLSv1.3');
  });

  it('--client-ca-file: a certificate it issued is its CommonName in its Organizations; any other is 401', async () => {
    expect((await callAs('flags', '/metrics', userCa, 'carol', ['system:monitoring'])).status).toBe(200);
    const carol = await callAs('flags', '/metrics', userCa, 'carol');
    expect(carol.status).toBe(403);
    expect(JSON.parse(carol.body).message).toMatch(/^forbidden: User "carol" cannot get path "\/metrics"/);
    expect((await callAs('flags', '/healthz', strangerCa, 'carol', ['system:monitoring'])).status).toBe(401);
    // No token reviews without --authentication-svcconfig: a bearer token is not read, the caller is anonymous.
    expect((await call('flags', '/metrics', 'prometheus-token')).status).toBe(403);
  });

  it('--requestheader-*: an allowed proxy names the caller in headers; another CommonName, or no proxy, does not', async () => {
    const asDave = { 'X-Remote-User': 'dave', 'X-Remote-Group': 'system:monitoring' };
    expect((await callAs('flags', '/metrics', proxyCa, 'front-proxy', [], asDave)).status).toBe(200);
    const bob = await callAs('flags', '/metrics', proxyCa, 'front-proxy', [], { 'X-Remote-User': 'bob' });
    expect(bob.status).toBe(403);
    expect(JSON.parse(bob.body).message).toMatch(/^forbidden: User "bob" cannot get path "\/metrics"/);
    expect((await callAs('flags', '/metrics', proxyCa, 'another-proxy', [], asDave)).status).toBe(401);
    // A client certificate of the user CA cannot assert someone else.
    expect((await callAs('flags', '/metrics', userCa, 'carol', [], asDave)).status).toBe(403);
  });

  it('without the flags, the CAs the API server publishes are read (the server issues the caller here)', async () => {
    const serverCa = await ensureClientCa(join(server.dir, 'certs'));
    expect((await callAs('cm', '/metrics', serverCa, 'erin', ['system:monitoring'])).status).toBe(200);
    expect((await callAs('cm', '/metrics', strangerCa, 'erin', ['system:monitoring'])).status).toBe(401);
  });

  it('a lookup that fails stops the process unless --authentication-tolerate-lookup-failure', async () => {
    // bob may not read the published ConfigMap.
    const bobFile = join(dir, 'bob.svcconfig');
    await writeIdentityConnectionFile({ connectionFile: server.kubeconfig, certDir: join(server.dir, 'certs'), path: bobFile, user: 'bob' });
    const failed = await startControllerManagerProcess(
      server,
      [`--svcconfig=${bobFile}`, `--authentication-svcconfig=${bobFile}`, '--controllers=serviceaccount'],
      60_000,
    ).then(
      (c) => c.stop().then(() => 'started'),
      (error: unknown) => String(error),
    );
    expect(failed).toContain('unable to load configmap svc-system/extension-apiserver-authentication');
    components.tolerant = await startControllerManagerProcess(
      server,
      [
        `--svcconfig=${join(dir, 'cm.svcconfig')}`,
        `--authentication-svcconfig=${bobFile}`,
        '--authentication-tolerate-lookup-failure',
        '--controllers=serviceaccount',
      ],
      60_000,
    );
    expect((await call('tolerant', '/healthz')).status).toBe(200);
  });
});
