import { request } from 'node:http';
import { localRuntimeUnavailable } from '@svc/cri/testing';
import { eventually } from '@svc/runtime/testing';
import { startControllerManagerProcess, type ControllerManagerProcess } from './support/controller-manager-process';
import { kubectl } from './support/kubectl-run';
import { startNodeCluster, type NodeCluster } from './support/node-cluster';

const unavailable = localRuntimeUnavailable();
if (unavailable) console.warn(`Node agent workload tests against a local containerd are skipped: ${unavailable}`);
const describeWithRuntime = unavailable ? describe.skip : describe;

function httpGet(host: string, port: number, path = '/'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path, timeout: 5_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.end();
  });
}

interface PodSummary {
  name: string;
  uid: string;
  ip: string;
  containerID: string;
  restartCount: number;
  startedAt: string;
}

describeWithRuntime('node agent: a Deployment served through Endpoints, and a restart of the agent that adopts its pods', () => {
  let cluster: NodeCluster;
  let controllers: ControllerManagerProcess;
  let clusterCidr: string;
  const env = () => cluster.env();

  const webPods = async (): Promise<PodSummary[]> => {
    const list = JSON.parse((await kubectl(['get', 'pods', '-l', 'app=web', '-o', 'json'], env())).stdout);
    return list.items.map((pod: any) => ({
      name: pod.metadata.name,
      uid: pod.metadata.uid,
      ip: pod.status?.podIP,
      containerID: pod.status?.containerStatuses?.[0]?.containerID,
      restartCount: pod.status?.containerStatuses?.[0]?.restartCount,
      startedAt: pod.status?.containerStatuses?.[0]?.state?.running?.startedAt,
    }));
  };

  beforeAll(async () => {
    // The agent has no pod CIDR of its own: the controller manager's node IPAM gives its Node one.
    cluster = await startNodeCluster({ agent: { config: { podCIDR: '' } } });
    clusterCidr = `10.${200 + Math.floor(Math.random() * 50)}.0.0/16`;
    controllers = await startControllerManagerProcess(cluster.apiserver, [
      '--allocate-node-cidrs',
      `--cluster-cidr=${clusterCidr}`,
      '--node-cidr-mask-size=24',
    ]);
  }, 120_000);

  afterAll(async () => {
    await controllers?.stop();
    await cluster?.stop();
  }, 60_000);

  it('the node IPAM controller gives the Node a pod CIDR of the cluster range, which the agent hands to the runtime', async () => {
    await eventually(
      async () => {
        const node = JSON.parse((await kubectl(['get', 'node', cluster.agent.nodeName, '-o', 'json'], env())).stdout);
        expect(node.spec.podCIDR).toBe(clusterCidr.replace('/16', '/24'));
        expect(node.spec.podCIDRs).toEqual([node.spec.podCIDR]);
      },
      20_000,
      250,
    );
    await eventually(async () => expect(cluster.agent.stderr()).toContain(`pod CIDR ${clusterCidr.replace('/16', '/24')} handed to the runtime`), 20_000, 250);
  }, 30_000);

  it('a Deployment of 3 with an httpGet readiness probe becomes Available; its Endpoints hold the pod IPs, which answer HTTP', async () => {
    await cluster.apply(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web' },
        spec: {
          replicas: 3,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: {
              // No scheduler runs here: the template names the node, as a pod may.
              nodeName: cluster.agent.nodeName,
              terminationGracePeriodSeconds: 2,
              containers: [
                {
                  name: 'httpd',
                  image: 'busybox:1.36',
                  command: ['sh', '-c', 'mkdir -p /www && hostname > /www/index.html && exec httpd -f -p 8080 -h /www'],
                  ports: [{ name: 'http', containerPort: 8080 }],
                  readinessProbe: { httpGet: { path: '/index.html', port: 'http' }, periodSeconds: 1 },
                },
              ],
            },
          },
        },
      },
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'web' },
        spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 'http' }] },
      },
    );
    await kubectl(['rollout', 'status', 'deployment/web', '--timeout=60s'], env(), 70_000);
    const deployment = JSON.parse((await kubectl(['get', 'deployment', 'web', '-o', 'json'], env())).stdout);
    expect(deployment.status).toMatchObject({ replicas: 3, readyReplicas: 3, availableReplicas: 3 });
    expect(deployment.status.conditions).toContainEqual(expect.objectContaining({ type: 'Available', status: 'True' }));
    const pods = await webPods();
    expect(pods).toHaveLength(3);
    const ips = pods.map((p) => p.ip).sort();
    const prefix = clusterCidr.split('.').slice(0, 2).join('.');
    for (const ip of ips) expect(ip.startsWith(`${prefix}.0.`)).toBe(true);
    expect(new Set(ips).size).toBe(3);
    await eventually(
      async () => {
        const endpoints = JSON.parse((await kubectl(['get', 'endpoints', 'web', '-o', 'json'], env())).stdout);
        const addresses = (endpoints.subsets ?? []).flatMap((s: any) => (s.addresses ?? []).map((a: any) => a.ip)).sort();
        expect(addresses).toEqual(ips);
        expect(endpoints.subsets[0].ports).toEqual([expect.objectContaining({ port: 8080 })]);
      },
      20_000,
      250,
    );
    for (const pod of pods) expect(await httpGet(pod.ip, 8080)).toEqual({ status: 200, body: `${pod.name}\n` });
  }, 90_000);

  it('kill -9 of the agent and a restart keep every container running and unrestarted', async () => {
    const before = (await webPods()).sort((a, b) => a.name.localeCompare(b.name));
    expect(before.every((p) => p.restartCount === 0 && p.containerID)).toBe(true);
    const runtimeBefore = (await cluster.containerd.cri.listContainers()).map((c) => c.id).sort();
    await cluster.agent.kill();
    // The containers run on without their agent.
    for (const pod of before) expect(await httpGet(pod.ip, 8080)).toEqual({ status: 200, body: `${pod.name}\n` });
    await cluster.agent.restart();
    // Long enough for the restarted agent to sync every pod and probe each a few times.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    await eventually(async () => {
      const after = (await webPods()).sort((a, b) => a.name.localeCompare(b.name));
      expect(after).toEqual(before);
    });
    expect((await cluster.containerd.cri.listContainers()).map((c) => c.id).sort()).toEqual(runtimeBefore);
    const running = await cluster.containerd.cri.listContainers({ state: { state: 'CONTAINER_RUNNING' } });
    expect(running.length).toBeGreaterThanOrEqual(3);
    const deployment = JSON.parse((await kubectl(['get', 'deployment', 'web', '-o', 'json'], env())).stdout);
    expect(deployment.status).toMatchObject({ readyReplicas: 3, availableReplicas: 3 });
  }, 60_000);

  it('deleting the Deployment stops its containers and leaves nothing in the runtime', async () => {
    const uids = (await webPods()).map((p) => p.uid);
    await kubectl(['delete', 'deployment', 'web'], env());
    await eventually(async () => expect(await webPods()).toEqual([]), 40_000, 250);
    for (const uid of uids) {
      expect(await cluster.containerd.cri.listContainers({ labelSelector: { 'io.kubernetes.pod.uid': uid } })).toEqual([]);
      expect(await cluster.containerd.cri.listPodSandbox({ labelSelector: { 'io.kubernetes.pod.uid': uid } })).toEqual([]);
    }
  }, 60_000);
});
