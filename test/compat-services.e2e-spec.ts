import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigMap, EndpointSlice, Endpoints, Lease, Pod, ReplicationController, Service, Status } from '@svc/api';
import { ApiClient } from './support/api-client';
import { MERGE_PATCH, createNamespace, eventually, expectStatus } from './support/api-fixtures';
import { freeLoopbackPort, startApiServerProcess, type ApiServerProcess } from './support/apiserver-process';
import { startControllerManagerProcess, type ControllerManagerProcess } from './support/controller-manager-process';
import { kubectl as kubectlOrFail } from './support/kubectl-run';
import { RestartableApiServer } from './support/restartable-apiserver';

// Services as Kubernetes allocates them, against the real svc-apiserver process: cluster IPs from
// --service-cluster-ip-range, node ports from --service-node-port-range, both kept across a restart.

const RANGE_ARGS = ['--service-cluster-ip-range=10.96.0.0/26', '--service-node-port-range=30100-30160'];
/** 10.96.0.0/26 hands out .1 to .62: the kubernetes Service holds .1. */
const USABLE_IPS = 62;

function service(name: string, spec: Record<string, unknown> = {}): Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80 }], selector: { app: name }, ...spec } };
}

describe('cluster IPs and node ports', () => {
  let dir: string;
  let server: RestartableApiServer;
  let client: ApiClient;
  const ns = 'alloc';
  const services = `/api/v1/namespaces/${ns}/services`;

  async function connect(): Promise<void> {
    client?.close();
    const { readFile } = await import('node:fs/promises');
    const { parse } = await import('yaml');
    const config = parse(await readFile(server.svcconfig, 'utf8')) as { clusters: Array<{ cluster: { 'certificate-authority-data': string } }> };
    client = new ApiClient(`https://127.0.0.1:${server.port}`, Buffer.from(config.clusters[0].cluster['certificate-authority-data'], 'base64').toString());
  }

  beforeAll(async () => {
    RestartableApiServer.assertBuilt();
    dir = await mkdtemp(join(tmpdir(), 'svc-services-e2e-'));
    server = new RestartableApiServer(dir, await freeLoopbackPort());
    await server.start(RANGE_ARGS);
    await connect();
    await createNamespace(client, ns);
  }, 60_000);

  afterAll(async () => {
    client?.close();
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps the kubernetes Service in default on the first address of the range, its Endpoints on the API server', async () => {
    await eventually(async () => {
      const kubernetes = await client.get<Service>('/api/v1/namespaces/default/services/kubernetes');
      expectStatus(kubernetes, 200);
      expect(kubernetes.body.spec).toMatchObject({
        type: 'ClusterIP',
        clusterIP: '10.96.0.1',
        clusterIPs: ['10.96.0.1'],
        ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: server.port }],
      });
      expect(kubernetes.body.metadata?.labels).toEqual({ component: 'apiserver', provider: 'kubernetes' });
      const endpoints = await client.get<Endpoints>('/api/v1/namespaces/default/endpoints/kubernetes');
      expect(endpoints.body.subsets).toEqual([{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: server.port, protocol: 'TCP' }] }]);
      // Its EndpointSlice too, which kubectl describe reads (the API server writes it, as Kubernetes' does).
      const slice = await client.get<EndpointSlice>('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes');
      expectStatus(slice, 200);
      expect(slice.body).toMatchObject({
        apiVersion: 'discovery.k8s.io/v1',
        metadata: { labels: { 'kubernetes.io/service-name': 'kubernetes' } },
        addressType: 'IPv4',
        endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
        ports: [{ name: 'https', port: server.port, protocol: 'TCP' }],
      });
    });
  });

  it('gives 50 Services created at once 50 distinct cluster IPs from the range', async () => {
    const created = await Promise.all(Array.from({ length: 50 }, (_, i) => client.post<Service>(services, service(`burst-${i}`))));
    for (const res of created) expectStatus(res, 201);
    const ips = created.map((res) => res.body.spec?.clusterIP ?? '');
    expect(new Set(ips).size).toBe(50);
    for (const ip of ips) expect(ip).toMatch(/^10\.96\.0\.(\d+)$/);
    expect(ips).not.toContain('10.96.0.1');
    for (const res of created) expect(res.body.spec?.clusterIPs).toEqual([res.body.spec?.clusterIP]);
  });

  it('honours a requested IP, and refuses a taken or out-of-range one with Kubernetes’ message', async () => {
    const free = await (async () => {
      const taken = new Set((await client.get<{ items: Service[] }>('/api/v1/services')).body.items.map((s) => s.spec?.clusterIP));
      for (let i = 2; i < USABLE_IPS; i++) if (!taken.has(`10.96.0.${i}`)) return `10.96.0.${i}`;
      throw new Error('no free address left');
    })();
    const requested = await client.post<Service>(services, service('requested', { clusterIP: free }));
    expectStatus(requested, 201);
    expect(requested.body.spec).toMatchObject({ clusterIP: free, clusterIPs: [free] });
    const again = await client.post<Status>(services, service('requested-again', { clusterIP: free }));
    expectStatus(again, 422);
    expect(again.body.message).toBe(
      `Service "requested-again" is invalid: spec.clusterIPs: Invalid value: []string{"${free}"}: failed to allocate IP ${free}: provided IP is already allocated`,
    );
    const outside = await client.post<Status>(services, service('outside', { clusterIP: '10.0.0.10' }));
    expectStatus(outside, 422);
    expect(outside.body.message).toContain(
      'failed to allocate IP 10.0.0.10: the provided IP (10.0.0.10) is not in the valid range. The range of valid IPs is 10.96.0.0/26',
    );
    // A cluster IP never changes; a write that leaves it out keeps it.
    const kept = await client.put<Service>(`${services}/requested`, {
      ...requested.body,
      spec: { ...requested.body.spec, clusterIP: undefined, clusterIPs: undefined },
    });
    expectStatus(kept, 200);
    expect(kept.body.spec?.clusterIP).toBe(free);
    const moved = await client.patch<Status>(`${services}/requested`, MERGE_PATCH, { spec: { clusterIP: '10.96.0.63', clusterIPs: ['10.96.0.63'] } });
    expectStatus(moved, 422);
    expect(moved.body.message).toContain('spec.clusterIPs[0]: Invalid value: "10.96.0.63": may not change once set');
    // Deleted, its address is free again.
    expectStatus(await client.delete(`${services}/requested`), 200);
    expectStatus(await client.post(services, service('requested-later', { clusterIP: free })), 201);
  });

  it('allocates node ports from the range, honours requested ones and frees them with the type', async () => {
    const nodePort = await client.post<Service>(
      services,
      service('np', {
        type: 'NodePort',
        ports: [
          { name: 'http', port: 80 },
          { name: 'https', port: 443 },
        ],
      }),
    );
    expectStatus(nodePort, 201);
    const ports = (nodePort.body.spec?.ports ?? []).map((p) => p.nodePort ?? 0);
    expect(new Set(ports).size).toBe(2);
    for (const p of ports) expect(p >= 30100 && p <= 30160).toBe(true);
    expect(nodePort.body.spec).toMatchObject({ externalTrafficPolicy: 'Cluster', internalTrafficPolicy: 'Cluster' });

    // Requested ports come from the lower band, which dynamic allocation leaves for them as long as it can.
    const fixed = await client.post<Service>(services, service('np-fixed', { type: 'NodePort', ports: [{ port: 80, nodePort: 30105 }] }));
    expectStatus(fixed, 201);
    const clash = await client.post<Status>(services, service('np-clash', { type: 'NodePort', ports: [{ port: 80, nodePort: 30105 }] }));
    expectStatus(clash, 422);
    expect(clash.body.message).toBe('Service "np-clash" is invalid: spec.ports[0].nodePort: Invalid value: 30105: provided port is already allocated');
    const outside = await client.post<Status>(services, service('np-outside', { type: 'NodePort', ports: [{ port: 80, nodePort: 31000 }] }));
    expect(outside.body.message).toContain('provided port is not in the valid range. The range of valid ports is 30100-30160');

    // Back to ClusterIP: the node port goes, and another Service may take it.
    const back = await client.patch<Service>(`${services}/np-fixed`, 'application/strategic-merge-patch+json', { spec: { type: 'ClusterIP' } });
    expectStatus(back, 200);
    expect(back.body.spec?.ports?.[0].nodePort).toBeUndefined();
    expectStatus(await client.post(services, service('np-reuse', { type: 'NodePort', ports: [{ port: 80, nodePort: 30105 }] })), 201);
  });

  it('gives a headless Service no address, and an ExternalName one no family fields', async () => {
    const headless = await client.post<Service>(services, service('headless', { clusterIP: 'None' }));
    expectStatus(headless, 201);
    expect(headless.body.spec).toMatchObject({ clusterIP: 'None', clusterIPs: ['None'], ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack' });
    const external = await client.post<Service>(services, { metadata: { name: 'external' }, spec: { type: 'ExternalName', externalName: 'db.example.com' } });
    expectStatus(external, 201);
    expect(external.body.spec).toEqual({ type: 'ExternalName', externalName: 'db.example.com', sessionAffinity: 'None' });
  });

  it('after a restart hands out no address or port a live Service holds, until the range is full', async () => {
    const before = (await client.get<{ items: Service[] }>('/api/v1/services')).body.items;
    const held = new Set(before.map((s) => s.spec?.clusterIP).filter((ip) => ip && ip !== 'None'));
    const heldPorts = new Set(before.flatMap((s) => (s.spec?.ports ?? []).map((p) => p.nodePort)).filter(Boolean));
    await server.stop();
    await server.start(RANGE_ARGS);
    await connect();

    const fresh: string[] = [];
    for (let i = 0; ; i++) {
      const res = await client.post<Service & Status>(services, service(`after-${i}`));
      if (res.status !== 201) {
        expectStatus(res, 422);
        expect(res.body.message).toContain('failed to allocate IP: range is full');
        break;
      }
      fresh.push(res.body.spec?.clusterIP ?? '');
      if (i > USABLE_IPS) throw new Error('the range never filled');
    }
    for (const ip of fresh) expect(held.has(ip)).toBe(false);
    expect(new Set(fresh).size).toBe(fresh.length);
    expect(held.size + fresh.length).toBe(USABLE_IPS);

    // Node ports held before the restart stay held; a new one is another.
    expectStatus(await client.delete(`${services}/after-0`), 200);
    const [held0] = [...heldPorts];
    const clash = await client.post<Status>(services, service('np-after', { type: 'NodePort', ports: [{ port: 80, nodePort: held0 }] }));
    expectStatus(clash, 422);
    expect(clash.body.message).toContain('provided port is already allocated');
    const np = await client.post<Service>(services, service('np-after', { type: 'NodePort' }));
    expectStatus(np, 201);
    expect(heldPorts.has(np.body.spec?.ports?.[0].nodePort)).toBe(false);
  }, 60_000);
});

describe('Services, ReplicationControllers and owners through kubectl and the controller manager', () => {
  let server: ApiServerProcess;
  let manager: ControllerManagerProcess;
  let client: ApiClient;
  const ns = 'compat-workloads';

  beforeAll(async () => {
    server = await startApiServerProcess();
    manager = await startControllerManagerProcess(server);
    client = new ApiClient(server.url, server.ca);
    await createNamespace(client, ns);
  }, 60_000);

  afterAll(async () => {
    client?.close();
    await manager?.stop();
    await server?.stop();
  });

  async function kubectl(...args: string[]): Promise<string> {
    return (await kubectlOrFail(args, server.kubectlEnv)).stdout;
  }

  it('kubectl create service and expose show a CLUSTER-IP from the default range', async () => {
    await kubectl('create', 'service', 'clusterip', 'web', '--tcp=80:8080', '-n', ns);
    await kubectl('create', 'service', 'nodeport', 'edge', '--tcp=443:8443', '-n', ns);
    await kubectl('create', 'deployment', 'api', '--image=registry.example/api:1', '--port=8080', '-n', ns);
    await kubectl('expose', 'deployment', 'api', '--port=80', '--target-port=8080', '-n', ns);
    const table = await kubectl('get', 'services', '-n', ns);
    const rows = table.trim().split('\n');
    expect(rows[0]).toMatch(/^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE$/);
    const cell = (name: string) => rows.find((r) => r.startsWith(`${name} `))?.split(/\s+/);
    expect(cell('web')?.slice(1, 3)).toEqual(['ClusterIP', expect.stringMatching(/^10\.0\.0\.\d+$/)]);
    expect(cell('api')?.slice(1, 3)).toEqual(['ClusterIP', expect.stringMatching(/^10\.0\.0\.\d+$/)]);
    expect(cell('edge')?.[1]).toBe('NodePort');
    expect(cell('edge')?.[4]).toMatch(/^443:3\d{4}\/TCP$/);
  });

  it('keeps a Service’s EndpointSlices at its ready pods, so kubectl describe service shows them, and removes them with it', async () => {
    await kubectl('create', 'service', 'clusterip', 'sliced', '--tcp=80:8080', '-n', ns);
    for (const [name, ip] of [
      ['sliced-a', '10.244.0.11'],
      ['sliced-b', '10.244.0.12'],
    ]) {
      const pod = await client.post<Pod>(`/api/v1/namespaces/${ns}/pods`, {
        metadata: { name, labels: { app: 'sliced' } },
        spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 8080 }] }] },
      });
      expectStatus(pod, 201);
      const ready = await client.patch(`/api/v1/namespaces/${ns}/pods/${name}/status`, MERGE_PATCH, {
        status: { phase: 'Running', podIP: ip, podIPs: [{ ip }], conditions: [{ type: 'Ready', status: 'True' }] },
      });
      expectStatus(ready, 200);
    }
    const slices = async () =>
      (
        await client.get<{ items: EndpointSlice[] }>(`/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`, {
          labelSelector: 'kubernetes.io/service-name=sliced',
        })
      ).body.items;
    await eventually(async () => {
      const [slice, ...rest] = await slices();
      expect(rest).toEqual([]);
      expect(slice.metadata?.labels).toMatchObject({ app: 'sliced', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' });
      expect(slice.metadata?.ownerReferences).toEqual([expect.objectContaining({ kind: 'Service', name: 'sliced', controller: true })]);
      expect(slice.ports).toEqual([{ name: '80-8080', port: 8080, protocol: 'TCP' }]); // the port name kubectl create service gives
      expect(slice.endpoints?.map((e) => [e.addresses[0], e.conditions, e.targetRef?.name])).toEqual([
        ['10.244.0.11', { ready: true, serving: true, terminating: false }, 'sliced-a'],
        ['10.244.0.12', { ready: true, serving: true, terminating: false }, 'sliced-b'],
      ]);
    }, 20_000);
    expect(await kubectl('describe', 'service', 'sliced', '-n', ns)).toMatch(/Endpoints:\s+10\.244\.0\.11:8080,10\.244\.0\.12:8080\n/);
    expect(await kubectl('get', 'endpointslices', '-n', ns, '-l', 'kubernetes.io/service-name=sliced', '--no-headers')).toMatch(
      /^sliced-[0-9a-f]{5}\s+IPv4\s+8080\s+10\.244\.0\.11,10\.244\.0\.12\s+/,
    );
    expect(await kubectl('describe', 'service', 'kubernetes', '-n', 'default')).toMatch(/Endpoints:\s+127\.0\.0\.1:\d+\n/);

    await kubectl('delete', 'service', 'sliced', '-n', ns);
    await eventually(async () => expect(await slices()).toEqual([]), 20_000);
  }, 60_000);

  it('runs a ReplicationController’s pods, scaled with kubectl scale', async () => {
    const rc = await client.post<ReplicationController>(`/api/v1/namespaces/${ns}/replicationcontrollers`, {
      apiVersion: 'v1',
      kind: 'ReplicationController',
      metadata: { name: 'legacy' },
      spec: { replicas: 2, template: { metadata: { labels: { app: 'legacy' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    expectStatus(rc, 201);
    const owned = async () =>
      (await client.get<{ items: Pod[] }>(`/api/v1/namespaces/${ns}/pods`, { labelSelector: 'app=legacy' })).body.items.filter(
        (p) => !p.metadata?.deletionTimestamp && p.metadata?.ownerReferences?.[0]?.kind === 'ReplicationController',
      );
    await eventually(async () => expect(await owned()).toHaveLength(2), 20_000);
    await kubectl('scale', 'rc', 'legacy', '--replicas=3', '-n', ns);
    await eventually(async () => expect(await owned()).toHaveLength(3), 20_000);
    await eventually(async () => expect(await kubectl('get', 'rc', 'legacy', '-n', ns, '--no-headers')).toMatch(/^legacy\s+3\s+3\s+/), 20_000);
    // Deleted, its pods go with it (the garbage collector follows their owner references).
    await kubectl('delete', 'rc', 'legacy', '-n', ns);
    await eventually(async () => expect(await owned()).toHaveLength(0), 20_000);
  }, 60_000);

  it('collects an object whose owner reference names its owner by the Kubernetes group name', async () => {
    const owner = await client.post<Lease>(`/apis/coordination.svc.io/v1/namespaces/${ns}/leases`, { metadata: { name: 'owner' } });
    expectStatus(owner, 201);
    const dependent = await client.post<ConfigMap>(`/api/v1/namespaces/${ns}/configmaps`, {
      metadata: {
        name: 'dependent',
        ownerReferences: [{ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', name: 'owner', uid: owner.body.metadata!.uid! }],
      },
    });
    expectStatus(dependent, 201);
    expectStatus(await client.delete(`/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/owner`), 200);
    await eventually(async () => expectStatus(await client.get(`/api/v1/namespaces/${ns}/configmaps/dependent`), 404), 20_000);
  }, 30_000);
});
