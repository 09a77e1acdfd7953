// `npm start` turns on audit and encryption at rest by itself: a Secret is logged at Metadata only and
// is unreadable in the store file; the generated key and the store are readable by their owner only.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@svc/runtime/testing';
import { freeLoopbackPort, ROOT } from './support/apiserver-process';
import { kubectl } from './support/kubectl-run';

describe('npm start: security defaults', () => {
  let dir: string;
  let child: ChildProcess;
  let output = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-control-plane-e2e-'));
    const port = await freeLoopbackPort();
    child = spawn(process.execPath, [join(ROOT, 'bin', 'svc-control-plane.js')], {
      cwd: ROOT,
      // No node: a runtime socket that is not there keeps npm start from running containerd of its own.
      env: {
        ...process.env,
        SVC_DATA: join(dir, 'data'),
        // The ingress controller and the metrics server take fixed host ports, which other tests' clusters use.
        SVC_INGRESS: 'off',
        SVC_METRICS_SERVER: 'off',
        SVC_PORT: String(port),
        SVC_CONTAINER_RUNTIME_ENDPOINT: `unix://${join(dir, 'none.sock')}`,
        NO_COLOR: '1',
        // No service proxy: the host's nftables are left alone.
        SVC_SERVICE_PROXY: 'off',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
    await eventually(async () => expect(output).toContain('Control plane running'), 60_000);
  }, 90_000);
  afterAll(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('audits a Secret at Metadata without its value and stores it encrypted under a private key file', async () => {
    const env = { KUBECONFIG: join(dir, 'data', 'svcconfig'), HOME: dir };
    await kubectl(['create', 'secret', 'generic', 'creds', '--from-literal=token=default-plaintext-token'], env);
    const read = await kubectl(['get', 'secret', 'creds', '-o', 'jsonpath={.data.token}'], env);
    expect(Buffer.from(read.stdout, 'base64').toString()).toBe('default-plaintext-token');

    const log = join(dir, 'data', 'audit', 'audit.log');
    await eventually(async () => {
      const lines = readFileSync(log, 'utf8')
        .split('\n')
        // This Secret's own create: npm start writes a bootstrap token Secret of its own.
        .filter((l) => l.includes('"resource":"secrets"') && l.includes('"verb":"create"') && l.includes('"namespace":"default"'))
        .map((l) => JSON.parse(l) as { level: string; stage: string; requestObject?: unknown });
      expect(lines.map((l) => [l.stage, l.level])).toEqual([['ResponseComplete', 'Metadata']]);
      expect(lines[0].requestObject).toBeUndefined();
    });
    expect(readFileSync(log, 'utf8')).not.toContain(Buffer.from('default-plaintext-token').toString('base64'));

    const store = join(dir, 'data', 'store', 'store.sqlite');
    const bytes = [store, `${store}-wal`]
      .filter((f) => existsSync(f))
      .map((f) => readFileSync(f).toString('latin1'))
      .join('');
    expect(bytes).toContain('k8s:enc:aescbc:v1:');
    expect(bytes).not.toContain('default-plaintext-token');
    expect(bytes).not.toContain(Buffer.from('default-plaintext-token').toString('base64'));
    for (const file of [store, join(dir, 'data', 'encryption-config.yaml'), log]) expect(statSync(file).mode & 0o777).toBe(0o600);
  }, 60_000);

  it('runs each controller as its own ServiceAccount, and fills namespaces with their account and CA', async () => {
    const env = { KUBECONFIG: join(dir, 'data', 'svcconfig'), HOME: dir };
    await eventually(async () => {
      const accounts = (await kubectl(['get', 'serviceaccounts', '-n', 'svc-system', '-o', 'name'], env)).stdout;
      expect(accounts).toContain('serviceaccount/deployment-controller');
      expect(accounts).toContain('serviceaccount/root-ca-cert-publisher');
    }, 30_000);
    await eventually(
      async () => expect((await kubectl(['get', 'serviceaccount', 'default', '-o', 'name'], env)).stdout.trim()).toBe('serviceaccount/default'),
      30_000,
    );
    await eventually(
      async () =>
        expect((await kubectl(['get', 'configmap', 'kube-root-ca.crt', '-o', 'jsonpath={.data.ca\\.crt}'], env)).stdout).toContain('BEGIN CERTIFICATE'),
      30_000,
    );
  }, 90_000);
});
