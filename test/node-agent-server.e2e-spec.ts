import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { localRuntimeUnavailable } from '@svc/cri/testing';
import { eventually } from '@svc/runtime/testing';
import { KUBECTL, kubectl } from './support/kubectl-run';
import { randomPodCidr, startNodeCluster, type NodeCluster } from './support/node-cluster';

const unavailable = localRuntimeUnavailable();
if (unavailable) console.warn(`Node agent server tests against a local containerd are skipped: ${unavailable}`);
const describeWithRuntime = unavailable ? describe.skip : describe;

function get(secure: boolean, port: number, path: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const request = secure ? httpsRequest : httpRequest;
    const req = request({ host: '127.0.0.1', port, path, timeout: 5_000, rejectUnauthorized: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describeWithRuntime('node agent: its servers, DNS and registration settings', () => {
  let cluster: NodeCluster;
  const env = () => cluster.env();
  const podCidr = randomPodCidr();
  // A DNS server address inside the test's own pod network: no lookup leaves this machine.
  const dns = podCidr.replace(/\.0\/24$/, '.250');

  beforeAll(async () => {
    cluster = await startNodeCluster({
      agent: {
        config: {
          podCIDR: podCidr,
          clusterDNS: [dns],
          clusterDomain: 'cluster.test',
          registerWithTaints: [{ key: 'dedicated', value: 'tests', effect: 'NoSchedule' }],
        },
      },
    });
    await cluster.runPod('dns', ['sh', '-c', 'exec sleep 3600']);
    await eventually(async () => expect((await cluster.getPod('dns')).status.phase).toBe('Running'), 30_000, 250);
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  it('registers its Node with registerWithTaints', async () => {
    const node = JSON.parse((await kubectl(['get', 'node', cluster.agent.nodeName, '-o', 'json'], env())).stdout);
    // Beside its own, the not-ready taint TaintNodesByCondition admission puts on every new Node (no node
    // lifecycle controller runs here to lift it).
    expect(node.spec.taints).toHaveLength(2);
    expect(node.spec.taints).toEqual(
      expect.arrayContaining([
        { key: 'dedicated', value: 'tests', effect: 'NoSchedule' },
        { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' },
      ]),
    );
    expect(node.spec.podCIDR ?? '').toBe('');
  });

  it("gives pods the cluster DNS server, search path and options, and the pod's hostname", async () => {
    const resolv = (await kubectl(['exec', 'dns', '--', 'cat', '/etc/resolv.conf'], env())).stdout;
    expect(resolv).toContain(`nameserver ${dns}`);
    expect(resolv).toMatch(/^search default\.svc\.cluster\.test svc\.cluster\.test cluster\.test\b/m);
    expect(resolv).toContain('options ndots:5');
    expect((await kubectl(['exec', 'dns', '--', 'hostname'], env())).stdout).toBe('dns\n');
    const hosts = (await kubectl(['exec', 'dns', '--', 'cat', '/etc/hosts'], env())).stdout;
    expect(hosts).toMatch(new RegExp(`^${(await cluster.getPod('dns')).status.podIP.replace(/\./g, '\\.')}\\s+dns$`, 'm'));
  });

  it('serves /healthz on healthzPort, and /pods and /metrics on its secured port', async () => {
    expect(await get(false, cluster.agent.healthzPort, '/healthz')).toMatchObject({ status: 200, body: 'ok' });
    const pods = await get(true, cluster.agent.port, '/pods');
    expect(pods.status).toBe(200);
    const list = JSON.parse(pods.body);
    expect(list.kind).toBe('PodList');
    expect(list.items.map((p: { metadata: { name: string } }) => p.metadata.name)).toContain('dns');
    const metrics = await get(true, cluster.agent.port, '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.type).toMatch(/^text\/plain/);
    expect(metrics.body).toMatch(/^# HELP /m);
    // Where start-up time goes: the pod's start as a whole, its steps, and the runtime calls by operation.
    expect(metrics.body).toMatch(/^nodeagent_pod_start_duration_seconds_count [1-9]/m);
    expect(metrics.body).toMatch(/^nodeagent_pod_start_step_duration_seconds_count\{step="sandbox"\} [1-9]/m);
    expect(metrics.body).toMatch(/^nodeagent_runtime_operations_duration_seconds_count\{operation_type="RunPodSandbox"\} [1-9]/m);
    expect((await get(true, cluster.agent.port, '/nowhere')).status).toBe(404);
  });

  it('kubectl exec -it gives the command a terminal (kubectl run under a pseudo-terminal of its own)', async () => {
    const command = `${KUBECTL} exec -it dns -- sh -c 'test -t 0 && test -t 1 && echo terminal; tty'`;
    const result = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn('script', ['-qec', command, '/dev/null'], { env: { ...process.env, ...env() }, stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (out += c.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, out });
      });
    });
    expect(result.out.replace(/\r/g, '')).toMatch(/terminal\n\/dev\/pts\/\d+\n/);
    expect(result.code).toBe(0);
    const plain = await kubectl(['exec', 'dns', '--', 'sh', '-c', 'test -t 1 && echo terminal || echo pipe'], env());
    expect(plain.stdout).toBe('pipe\n');
  });
});
