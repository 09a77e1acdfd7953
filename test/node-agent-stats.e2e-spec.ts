import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureClientCa, issueClientCertificate, type IssuedCertificate } from '@svc/apiserver';
import { localRuntimeUnavailable } from '@svc/cri/testing';
import { eventually } from '@svc/runtime/testing';
import { startComponentProcess, type ComponentProcess } from './support/component-process';
import { httpsFetch } from './support/https-client';
import { startNodeCluster, type NodeCluster } from './support/node-cluster';

// The node's stats and the metrics API on a real node agent: a busybox container burning CPU under a
// CFS quota, its figures on /stats/summary, /metrics/resource and /metrics/cadvisor checked against
// its own cgroup, and the metrics server's PodMetrics of it, asked as the aggregator asks (the
// front proxy's client certificate and X-Remote-* headers).

const unavailable = localRuntimeUnavailable();
if (unavailable) console.warn(`Node stats tests against a local containerd are skipped: ${unavailable}`);
const describeWithRuntime = unavailable ? describe.skip : describe;

const insecure = new Agent({ rejectUnauthorized: false });

/** A cgroup's cumulative CPU in nanoseconds: cgroup v1's cpuacct.usage, or v2's cpu.stat usage_usec. */
function cgroupCpuNanos(path: string): number {
  const v1 = `/sys/fs/cgroup/cpuacct${path}/cpuacct.usage`;
  if (existsSync(v1)) return Number(readFileSync(v1, 'utf8').trim());
  const stat = readFileSync(`/sys/fs/cgroup${path}/cpu.stat`, 'utf8');
  return Number(/^usage_usec (\d+)$/m.exec(stat)?.[1] ?? 0) * 1000;
}

/** The value and timestamp of one series of a Prometheus text answer. */
function series(text: string, name: string, labels: Record<string, string> = {}): { value: number; timestamp?: number } | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    const fields = line
      .slice(line.lastIndexOf('}') + 1 || name.length)
      .trim()
      .split(/\s+/);
    return { value: Number(fields[0]), timestamp: fields[1] !== undefined ? Number(fields[1]) : undefined };
  }
  return undefined;
}

/** A CPU quantity as metrics-server writes it (`123456n`, `300m`, `1`), in nanocores. */
function cpuNanos(quantity: string): number {
  const match = /^(\d+)(n|u|m)?$/.exec(quantity);
  if (!match) throw new Error(`not a CPU quantity: ${quantity}`);
  const scale: Record<string, number> = { n: 1, u: 1e3, m: 1e6, '': 1e9 };
  return Number(match[1]) * scale[match[2] ?? ''];
}

function within(actual: number, expected: number, share: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(Math.abs(expected) * share);
}

describeWithRuntime('node agent stats and the metrics server', () => {
  let cluster: NodeCluster;
  let metrics: ComponentProcess;
  let dir: string;
  let proxy: IssuedCertificate;
  let containerCgroup: string;
  /** The burning container's cgroup read every 250 ms from the start: [ms, nanoseconds]. */
  const readings: Array<[number, number]> = [];
  let sampler: NodeJS.Timeout | undefined;

  const agentGet = (path: string) => httpsFetch(`https://127.0.0.1:${cluster.agent.port}${path}`, { agent: insecure });
  /** A request to the metrics server as the aggregator makes it: its client certificate, the user in headers. */
  const asAggregator = (path: string, user: string, groups: string[], certificate: IssuedCertificate | null = proxy, accept = 'application/json') =>
    httpsFetch(`https://127.0.0.1:${metrics.port}${path}`, {
      agent: new Agent({ rejectUnauthorized: false, cert: certificate?.certPem, key: certificate?.keyPem }),
      headers: { 'X-Remote-User': user, ...(groups.length > 0 ? { 'X-Remote-Group': groups.join(',') } : {}), Accept: accept },
    });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-node-stats-e2e-'));
    const proxyCa = await ensureClientCa(join(dir, 'front-proxy-ca'));
    proxy = await issueClientCertificate(proxyCa, 'front-proxy-client');
    cluster = await startNodeCluster({
      // The API server publishes the front proxy's CA in extension-apiserver-authentication, where the metrics server reads it.
      apiserverArgs: [
        '--authorization-mode=RBAC',
        `--requestheader-client-ca-file=${proxyCa.certFile}`,
        '--requestheader-allowed-names=front-proxy-client',
        '--requestheader-username-headers=X-Remote-User',
        '--requestheader-group-headers=X-Remote-Group',
        '--requestheader-extra-headers-prefix=X-Remote-Extra-',
      ],
    });
    await cluster.runPod('burn', ['sh', '-c', 'while :; do :; done'], {
      containers: [
        {
          name: 'burn',
          image: 'busybox:1.36',
          command: ['sh', '-c', 'dd if=/dev/zero of=/scratch/blob bs=1024 count=2048 2>/dev/null; while :; do :; done'],
          resources: { requests: { cpu: '300m', memory: '64Mi' }, limits: { cpu: '300m', memory: '64Mi' } },
          volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }],
        },
      ],
      volumes: [{ name: 'scratch', emptyDir: {} }],
    });
    let pod: { metadata: { uid: string }; status: { phase: string; qosClass: string; containerStatuses?: Array<{ containerID: string }> } } | undefined;
    await eventually(
      async () => {
        pod = await cluster.getPod('burn');
        expect(pod?.status.phase).toBe('Running');
      },
      60_000,
      250,
    );
    const id = pod?.status.containerStatuses?.[0].containerID.replace(/^containerd:\/\//, '') ?? '';
    expect(pod?.status.qosClass).toBe('Guaranteed');
    containerCgroup = `/kubepods/pod${pod?.metadata.uid}/${id}`;
    const sample = () => readings.push([Date.now(), cgroupCpuNanos(containerCgroup)]);
    sample();
    sampler = setInterval(sample, 250);
    metrics = await startComponentProcess(
      'svc-metrics-server',
      cluster.apiserver,
      [
        '--metric-resolution=10s',
        '--kubelet-request-timeout=5s',
        '--kubelet-insecure-tls',
        '--kubelet-preferred-address-types=InternalIP',
        '--kubelet-use-node-status-port',
      ],
      60_000,
    );
  }, 180_000);

  afterAll(async () => {
    clearInterval(sampler);
    await metrics?.stop();
    await cluster?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it("serves /stats/summary: the container's CPU as its cgroup counts it, its memory, volumes and the node", async () => {
    const get = async () => {
      const before = cgroupCpuNanos(containerCgroup);
      const at = Date.now();
      const res = await agentGet('/stats/summary');
      return { before, at, after: cgroupCpuNanos(containerCgroup), res };
    };
    const first = await get();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const second = await get();
    expect(second.res.status).toBe(200);
    expect(second.res.headers['content-type']).toMatch(/^application\/json/);
    const summary = JSON.parse(second.res.body);
    expect(summary.node.nodeName).toBe(cluster.agent.nodeName);
    expect(summary.node.cpu.usageCoreNanoSeconds).toBeGreaterThan(0);
    expect(summary.node.memory.workingSetBytes).toBeGreaterThan(0);
    expect(summary.node.fs.capacityBytes).toBeGreaterThan(0);
    expect(summary.node.runtime.imageFs.usedBytes).toBeGreaterThan(0);
    expect(summary.node.rlimit.maxpid).toBeGreaterThan(0);
    expect(summary.node.systemContainers.map((c: { name: string }) => c.name)).toEqual(['pods']);
    const pod = summary.pods.find((p: { podRef: { name: string } }) => p.podRef.name === 'burn');
    expect(pod.podRef.namespace).toBe('default');
    const container = pod.containers.find((c: { name: string }) => c.name === 'burn');
    // The cumulative figure is read between the test's own two readings of the cgroup.
    expect(container.cpu.usageCoreNanoSeconds).toBeGreaterThanOrEqual(second.before);
    expect(container.cpu.usageCoreNanoSeconds).toBeLessThanOrEqual(second.after);
    // The rate between the two requests, as the cgroup counted it over the same span.
    const cgroupRate = ((second.after - first.before) * 1000) / (second.at - first.at);
    within(container.cpu.usageNanoCores, cgroupRate, 0.2);
    expect(container.memory.workingSetBytes).toBeGreaterThan(0);
    expect(container.memory.availableBytes).toBeLessThanOrEqual(64 * 1024 * 1024);
    expect(container.rootfs).toBeDefined();
    expect(container.logs.usedBytes).toBeGreaterThanOrEqual(0);
    expect(pod.cpu.usageCoreNanoSeconds).toBeGreaterThanOrEqual(container.cpu.usageCoreNanoSeconds);
    expect(pod.network.interfaces.map((i: { name: string }) => i.name)).toContain('eth0');
    expect(pod['ephemeral-storage'].usedBytes).toBeGreaterThanOrEqual(2 * 1024 * 1024);
    const scratch = pod.volume.find((v: { name: string }) => v.name === 'scratch');
    expect(scratch.usedBytes).toBeGreaterThanOrEqual(2 * 1024 * 1024);
    expect(scratch.capacityBytes).toBeGreaterThan(scratch.usedBytes);
    expect(scratch.inodesUsed).toBeGreaterThanOrEqual(2);
    const only = JSON.parse((await agentGet('/stats/summary?only_cpu_and_memory=true')).body);
    expect(only.node.fs).toBeUndefined();
    expect(only.pods.find((p: { podRef: { name: string } }) => p.podRef.name === 'burn').volume).toBeUndefined();
  });

  it('serves /metrics/resource and /metrics/cadvisor with the kubelet metric names, the CPU as the cgroup counts it', async () => {
    const before = cgroupCpuNanos(containerCgroup);
    const res = await agentGet('/metrics/resource');
    const after = cgroupCpuNanos(containerCgroup);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const labels = { container: 'burn', namespace: 'default', pod: 'burn' };
    const cpu = series(res.body, 'container_cpu_usage_seconds_total', labels);
    expect(cpu?.value).toBeGreaterThanOrEqual(before / 1e9);
    expect(cpu?.value).toBeLessThanOrEqual(after / 1e9);
    expect(Math.abs((cpu?.timestamp ?? 0) - Date.now())).toBeLessThan(10_000);
    expect(series(res.body, 'container_memory_working_set_bytes', labels)?.value).toBeGreaterThan(0);
    expect(series(res.body, 'container_start_time_seconds', labels)?.value).toBeGreaterThan(Date.now() / 1000 - 600);
    expect(series(res.body, 'pod_cpu_usage_seconds_total', { namespace: 'default', pod: 'burn' })?.value).toBeGreaterThanOrEqual(cpu?.value ?? 0);
    expect(series(res.body, 'pod_memory_working_set_bytes', { namespace: 'default', pod: 'burn' })?.value).toBeGreaterThan(0);
    expect(series(res.body, 'node_cpu_usage_seconds_total')?.value).toBeGreaterThan(0);
    expect(series(res.body, 'node_memory_working_set_bytes')?.value).toBeGreaterThan(0);
    expect(series(res.body, 'resource_scrape_error')?.value).toBe(0);
    expect(res.body).toContain('# HELP container_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the container in core-seconds');

    const cadvisor = await agentGet('/metrics/cadvisor');
    expect(cadvisor.status).toBe(200);
    const cadvisorCpu = series(cadvisor.body, 'container_cpu_usage_seconds_total', { container: 'burn', pod: 'burn', cpu: 'total' });
    within(cadvisorCpu?.value ?? 0, cgroupCpuNanos(containerCgroup) / 1e9, 0.2);
    expect(series(cadvisor.body, 'container_spec_cpu_quota', { container: 'burn', pod: 'burn' })?.value).toBe(30_000);
    expect(series(cadvisor.body, 'container_cpu_cfs_periods_total', { container: 'burn', pod: 'burn' })?.value).toBeGreaterThan(0);
    expect(series(cadvisor.body, 'container_memory_working_set_bytes', { container: 'POD', pod: 'burn' })).toBeDefined();
    expect(series(cadvisor.body, 'machine_cpu_cores')?.value).toBeGreaterThan(0);
  });

  it("the metrics server answers the pod's CPU within 20% of its cgroup over the same window, to the front proxy only", async () => {
    const path = '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/burn';
    let body: { containers: Array<{ name: string; usage: { cpu: string; memory: string } }>; timestamp: string; window: string } | undefined;
    await eventually(
      async () => {
        const res = await asAggregator(path, 'admin', ['system:masters']);
        expect(res.status).toBe(200);
        body = JSON.parse(res.body);
      },
      40_000,
      500,
    );
    expect(body).toMatchObject({ kind: 'PodMetrics', apiVersion: 'metrics.k8s.io/v1beta1', metadata: { name: 'burn', namespace: 'default' } });
    const usage = body?.containers.find((c) => c.name === 'burn')?.usage;
    const cpu = cpuNanos(usage?.cpu ?? '');
    const windowMs = Number(/^([\d.]+)s$/.exec(body?.window ?? '')?.[1]) * 1000;
    expect(windowMs).toBeGreaterThanOrEqual(5_000);
    // The cgroup's own rate over the window that ends at the answer's timestamp (to the second).
    const end = Date.parse(body?.timestamp ?? '') + 500;
    const at = (time: number) => {
      const after = readings.findIndex(([t]) => t >= time);
      const [t1, u1] = readings[Math.max(0, after - 1)];
      const [t2, u2] = readings[after < 0 ? readings.length - 1 : after];
      return t2 === t1 ? u1 : u1 + ((u2 - u1) * (time - t1)) / (t2 - t1);
    };
    const cgroupRate = ((at(end) - at(end - windowMs)) * 1000) / windowMs;
    within(Number(cpu), cgroupRate, 0.2);
    expect(usage?.memory).toMatch(/^\d+(Ki|Mi)?$/);

    const nodes = JSON.parse((await asAggregator('/apis/metrics.k8s.io/v1beta1/nodes', 'admin', ['system:masters'])).body);
    expect(nodes.kind).toBe('NodeMetricsList');
    expect(nodes.items.map((n: { metadata: { name: string } }) => n.metadata.name)).toEqual([cluster.agent.nodeName]);
    const selected = JSON.parse((await asAggregator('/apis/metrics.k8s.io/v1beta1/pods?labelSelector=run%3Dburn', 'admin', ['system:masters'])).body);
    expect(selected.items.map((p: { metadata: { name: string } }) => p.metadata.name)).toEqual(['burn']);
    const none = JSON.parse((await asAggregator('/apis/metrics.k8s.io/v1beta1/pods?labelSelector=run%3Dother', 'admin', ['system:masters'])).body);
    expect(none.items).toEqual([]);
    const table = await asAggregator('/apis/metrics.k8s.io/v1beta1/nodes', 'admin', ['system:masters'], proxy, 'application/json;as=Table;v=v1;g=meta.k8s.io');
    expect(JSON.parse(table.body).columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'cpu', 'memory', 'Window']);
    const discovery = JSON.parse((await asAggregator('/apis/metrics.k8s.io/v1beta1', 'admin', ['system:masters'])).body);
    expect(discovery.resources.map((r: { name: string; kind: string }) => `${r.name}:${r.kind}`)).toEqual(['nodes:NodeMetrics', 'pods:PodMetrics']);
    const missing = await asAggregator('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/nothing', 'admin', ['system:masters']);
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body).message).toBe('pods "nothing" not found');

    // Authorized by SubjectAccessReview: a user without RBAC gets Kubernetes' refusal.
    const forbidden = await asAggregator('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods', 'mallory', []);
    expect(forbidden.status).toBe(403);
    expect(JSON.parse(forbidden.body).message).toContain(
      'pods.metrics.k8s.io is forbidden: User "mallory" cannot list resource "pods" in API group "metrics.k8s.io" in the namespace "default"',
    );
    // The headers count only with the front proxy's certificate: without it the caller is anonymous.
    const anonymous = await asAggregator(path, 'admin', ['system:masters'], null);
    expect(anonymous.status).toBe(403);
    expect(JSON.parse(anonymous.body).message).toContain('User "system:anonymous"');
  });
});
