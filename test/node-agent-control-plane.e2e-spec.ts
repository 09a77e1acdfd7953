// `npm start` with a container runtime: the node agent it starts admits only the API server's client
// certificate and what the API server authorizes, and kubectl logs and exec work through it.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { localRuntimeUnavailable, startContainerd, type ContainerdProcess } from '@svc/cri/testing';
import { eventually } from '@svc/runtime/testing';
import { freeLoopbackPort, ROOT } from './support/apiserver-process';
import { kubectl } from './support/kubectl-run';

const unavailable = localRuntimeUnavailable();
if (unavailable) console.warn(`npm start with a node agent is skipped: ${unavailable}`);
const describeWithRuntime = unavailable ? describe.skip : describe;

function agentStatus(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: 10250, path, rejectUnauthorized: false, agent: false, timeout: 5_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describeWithRuntime('npm start: a node agent behind authentication and authorization', () => {
  let dir: string;
  let containerd: ContainerdProcess;
  let child: ChildProcess;
  let output = '';
  const env = () => ({ KUBECONFIG: join(dir, 'data', 'svcconfig'), HOME: dir });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-control-plane-agent-e2e-'));
    containerd = await startContainerd();
    const port = await freeLoopbackPort();
    child = spawn(process.execPath, [join(ROOT, 'bin', 'svc-control-plane.js')], {
      cwd: ROOT,
      env: {
        ...process.env,
        SVC_DATA: join(dir, 'data'),
        // The ingress controller and the metrics server take fixed host ports, which other tests' clusters use.
        SVC_INGRESS: 'off',
        SVC_METRICS_SERVER: 'off',
        SVC_PORT: String(port),
        SVC_CONTAINER_RUNTIME_ENDPOINT: containerd.endpoint,
        // A range of its own, so that concurrent runs never share a bridge subnet.
        SVC_CLUSTER_CIDR: `10.${150 + Math.floor(Math.random() * 40)}.0.0/16`,
        // The service proxy's nftables table and ports are the host's own: the operator e2e runs one.
        SVC_SERVICE_PROXY: 'off',
        NO_COLOR: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
    await eventually(async () => expect(output).toMatch(/node \S+ running pods/), 90_000, 250);
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await containerd?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('runs a pod whose logs and exec go through the authenticated agent, which refuses anonymous requests', async () => {
    const node = hostname().toLowerCase();
    await kubectl(
      [
        'run',
        'hello',
        '--image=busybox:1.36',
        `--overrides=${JSON.stringify({ spec: { nodeName: node } })}`,
        '--',
        'sh',
        '-c',
        'echo hello from a container; exec sleep 3600',
      ],
      env(),
    );
    await eventually(
      async () => expect(JSON.parse((await kubectl(['get', 'pod', 'hello', '-o', 'json'], env())).stdout).status.phase).toBe('Running'),
      60_000,
      500,
    );
    await eventually(async () => expect((await kubectl(['logs', 'hello'], env())).stdout).toBe('hello from a container\n'), 20_000, 500);
    expect((await kubectl(['exec', 'hello', '--', 'sh', '-c', 'echo exec works'], env())).stdout).toBe('exec works\n');
    expect(await agentStatus('/pods')).toBe(401);
    await kubectl(['delete', 'pod', 'hello', '--wait=true'], env(), 60_000);
  }, 150_000);

  it('runs the agent as its node (system:node:<host>), held by the Node authorizer to what its pods need', async () => {
    const node = hostname().toLowerCase();
    const asAgent = { ...env(), KUBECONFIG: join(dir, 'data', 'node-agent.svcconfig') };
    const whoami = JSON.parse((await kubectl(['auth', 'whoami', '-o', 'json'], asAgent)).stdout) as {
      status: { userInfo: { username: string; groups: string[] } };
    };
    expect(whoami.status.userInfo.username).toBe(`system:node:${node}`);
    expect(whoami.status.userInfo.groups).toContain('system:nodes');
    await kubectl(['create', 'secret', 'generic', 'not-for-nodes', '--from-literal=k=v'], env());
    const refused = await kubectl(['get', 'secret', 'not-for-nodes'], asAgent).then(
      () => '',
      (error: unknown) => String(error),
    );
    expect(refused).toContain('Forbidden');
    expect(JSON.parse((await kubectl(['get', 'node', node, '-o', 'json'], env())).stdout).status.conditions).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'Ready', status: 'True' })]),
    );
  }, 60_000);
});
