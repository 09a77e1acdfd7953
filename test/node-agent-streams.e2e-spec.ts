import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { localRuntimeUnavailable } from '@svc/cri/testing';
import { eventually } from '@svc/runtime/testing';
import { kubectl, KUBECTL, runKubectl, spawnKubectl } from './support/kubectl-run';
import { startNodeCluster, type NodeCluster } from './support/node-cluster';

const unavailable = localRuntimeUnavailable();
if (unavailable) console.warn(`Node agent stream tests against a local containerd are skipped: ${unavailable}`);
const describeWithRuntime = unavailable ? describe.skip : describe;

function httpGet(port: number, path = '/'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, timeout: 5_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Runs kubectl with `input` on its stdin. */
function kubectlWithInput(args: string[], env: Record<string, string>, input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(KUBECTL, args, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

describeWithRuntime('node agent: logs, exec and port-forward through the API server', () => {
  let cluster: NodeCluster;
  const env = () => cluster.env();

  beforeAll(async () => {
    cluster = await startNodeCluster();
    await cluster.runPod('talker', ['sh', '-c', 'echo hello from busybox; i=0; while true; do i=$((i+1)); echo tick $i; sleep 0.2; done']);
    await cluster.runPod('web', ['sh', '-c', 'mkdir -p /www && echo served by httpd > /www/index.html && exec httpd -f -p 8080 -h /www']);
    await eventually(
      async () => {
        expect((await cluster.getPod('talker')).status.phase).toBe('Running');
        expect((await cluster.getPod('web')).status.phase).toBe('Running');
      },
      30_000,
      250,
    );
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  it('kubectl logs shows the output, with --tail, --timestamps and -f', async () => {
    await eventually(async () => expect((await kubectl(['logs', 'talker'], env())).stdout).toMatch(/^hello from busybox\ntick 1\n/), 10_000, 200);
    const tail = (await kubectl(['logs', 'talker', '--tail=2'], env())).stdout.trim().split('\n');
    expect(tail).toHaveLength(2);
    expect(tail[1]).toMatch(/^tick \d+$/);
    const stamped = (await kubectl(['logs', 'talker', '--tail=1', '--timestamps'], env())).stdout;
    expect(stamped).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z tick \d+\n$/);
    const follow = spawnKubectl(['logs', '-f', 'talker', '--tail=1'], env());
    try {
      const first = Number(/tick (\d+)/.exec(await follow.waitForOutput(/tick \d+\n/, 10_000))![1]);
      await follow.waitForOutput(new RegExp(`tick ${first + 3}\\n`), 10_000);
    } finally {
      await follow.stop();
    }
    const missing = await runKubectl(['logs', 'talker', '-c', 'nope'], env());
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('container nope is not valid for pod talker');
  }, 60_000);

  it('kubectl exec runs a command, passes stdin through and returns its exit code', async () => {
    const echo = await kubectl(['exec', 'talker', '--', 'sh', '-c', 'echo out; echo err >&2; hostname'], env());
    expect(echo.stdout).toBe('out\ntalker\n');
    expect(echo.stderr).toContain('err');
    const failed = await runKubectl(['exec', 'talker', '--', 'sh', '-c', 'exit 3'], env());
    expect(failed.code).toBe(3);
    const piped = await kubectlWithInput(['exec', '-i', 'talker', '-v=6', '--', 'sh', '-c', 'tr a-z A-Z; echo done'], env(), 'shout this\n');
    expect(piped.stdout).toBe('SHOUT THIS\ndone\n');
    expect(piped.code).toBe(0);
    // kubectl 1.32 speaks WebSocket v5 (translated by the agent); with it turned off, SPDY (relayed to the runtime).
    expect(piped.stderr).not.toMatch(/fallback/i);
    const spdy = await kubectlWithInput(
      ['exec', '-i', 'talker', '--', 'sh', '-c', 'cat; exit 4'],
      { ...env(), KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' },
      'over spdy\n',
    );
    expect([spdy.stdout, spdy.code]).toEqual(['over spdy\n', 4]);
  }, 60_000);

  it('kubectl port-forward reaches a busybox httpd in the pod', async () => {
    // kubectl 1.32 tunnels SPDY in a WebSocket; with that turned off it upgrades to SPDY itself.
    for (const websockets of ['true', 'false']) {
      const forward = spawnKubectl(['port-forward', 'pod/web', ':8080', '--address=127.0.0.1', '-v=6'], {
        ...env(),
        KUBECTL_PORT_FORWARD_WEBSOCKETS: websockets,
      });
      try {
        const output = await forward.waitForOutput(/Forwarding from 127\.0\.0\.1:(\d+) -> 8080/, 15_000);
        const port = Number(/Forwarding from 127\.0\.0\.1:(\d+)/.exec(output)![1]);
        for (let i = 0; i < 3; i++) expect(await httpGet(port)).toEqual({ status: 200, body: 'served by httpd\n' });
        if (websockets === 'true') {
          expect(forward.errors()).toContain('negotiated protocol: portforward.k8s.io');
          expect(forward.errors()).not.toMatch(/fallback/i);
        }
      } finally {
        await forward.stop();
      }
    }
  }, 60_000);

  it('an HTTP request to the pod IP is answered from this machine', async () => {
    const ip = (await cluster.getPod('web')).status.podIP;
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: ip, port: 8080, path: '/', timeout: 5_000 }, (r) => {
        let body = '';
        r.on('data', (c: Buffer) => (body += c.toString()));
        r.on('end', () => resolve({ status: r.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(res).toEqual({ status: 200, body: 'served by httpd\n' });
  });
});
