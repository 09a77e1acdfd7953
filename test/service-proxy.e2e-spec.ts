// The service proxy as a node runs it: the built `svc-proxy` process inside a node's network
// namespace, against a real API server process, as the user system:kube-proxy under RBAC (the
// bootstrap policy's system:node-proxier role). Pods are network namespaces on the node's bridge
// with a small TCP/UDP server each; their EndpointSlices are written here, as the EndpointSlice
// controller writes them for real pods (a later version can start pods through the node agent and
// keep every assertion).
import { join } from 'node:path';
import type { EndpointSlice, Event, Service } from '@svc/api';
import { Client, loadClientConfig } from '@svc/client';
import { writeIdentityConnectionFile } from '@svc/apiserver';
import { startApiServerProcess, type ApiServerProcess } from './support/apiserver-process';
import { ensureDebianPackages } from '@svc/cri';
import { NetnsNode, netnsPrefix, netnsUnavailable, POD_PORT, tcpFromHost, type NetnsPod } from '../bench/support/netns-network';
import { runProxyCommand, startProxyProcess, type ProxyProcess } from './support/proxy-process';

const unavailable =
  netnsUnavailable() ??
  ensureDebianPackages([
    { name: 'nftables', provides: '/usr/sbin/nft' },
    { name: 'conntrack', provides: '/usr/sbin/conntrack' },
  ]);
if (unavailable) console.log(`service proxy end-to-end tests skipped: ${unavailable}`);
const describeNetns = unavailable ? describe.skip : describe;

const NS = 'default';
const SERVICE_CIDR = '10.97.0.0/16';

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: Error | undefined;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error as Error;
    }
    if (Date.now() > deadline) throw new Error(`${what} did not happen in ${timeoutMs} ms${last ? `: ${last.message}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Who answered (the pod name of `<pod> <client ip>:<port>`) and the client address it saw. */
function parse(answer: string): { pod: string; client: string } {
  const [pod, address] = answer.split(' ');
  return { pod, client: address.slice(0, address.lastIndexOf(':')) };
}

async function answers(from: NetnsPod, host: string, port: number, count: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(parse(await from.tcp(host, port)).pod);
  return out;
}

const tally = (names: string[]) => names.reduce<Record<string, number>>((acc, n) => ({ ...acc, [n]: (acc[n] ?? 0) + 1 }), {});

interface EndpointOf {
  pod: NetnsPod;
  ready?: boolean;
  serving?: boolean;
  terminating?: boolean;
}

describeNetns('svc-proxy on a node (network namespaces, nftables)', () => {
  const prefix = netnsPrefix();
  let node: NetnsNode;
  let apiserver: ApiServerProcess;
  let client: Client;
  let proxy: ProxyProcess;
  let proxierConfig: string;
  let a: NetnsPod;
  let b: NetnsPod;
  let remote: NetnsPod;
  let x: NetnsPod;

  async function createService(name: string, spec: Service['spec']): Promise<Service> {
    return client.services.create(
      { metadata: { name, namespace: NS }, spec: { ports: [{ name: 'tcp', port: 80, targetPort: POD_PORT }], ...spec } },
      { namespace: NS },
    );
  }

  function sliceBody(service: string, endpoints: EndpointOf[], ports: EndpointSlice['ports']): EndpointSlice {
    return {
      metadata: { name: `${service}-slice`, namespace: NS, labels: { 'kubernetes.io/service-name': service } },
      addressType: 'IPv4',
      ports: ports ?? [{ name: 'tcp', port: POD_PORT, protocol: 'TCP' }],
      endpoints: endpoints.map((e) => ({
        addresses: [e.pod.ip],
        nodeName: e.pod.nodeName,
        conditions: { ready: e.ready ?? true, serving: e.serving ?? e.ready ?? true, terminating: e.terminating ?? false },
      })),
    };
  }

  async function putSlice(service: string, endpoints: EndpointOf[], ports?: EndpointSlice['ports']): Promise<void> {
    const body = sliceBody(service, endpoints, ports);
    try {
      const current = await client.endpointSlices.get(body.metadata!.name!, { namespace: NS });
      await client.endpointSlices.update({ ...body, metadata: { ...body.metadata, resourceVersion: current.metadata?.resourceVersion } }, { namespace: NS });
    } catch {
      await client.endpointSlices.create(body, { namespace: NS });
    }
  }

  const clusterIP = (service: Service) => service.spec!.clusterIP!;

  beforeAll(async () => {
    node = NetnsNode.create(prefix, 'node-a', SERVICE_CIDR);
    apiserver = await startApiServerProcess({
      args: [`--bind-address=${node.hostIp}`, '--authorization-mode=RBAC', `--service-cluster-ip-range=${SERVICE_CIDR}`],
    });
    client = new Client(await loadClientConfig({ svcconfig: apiserver.kubeconfig }));
    proxierConfig = join(apiserver.dir, 'proxy.svcconfig');
    await writeIdentityConnectionFile({
      connectionFile: apiserver.kubeconfig,
      certDir: join(apiserver.dir, 'certs'),
      path: proxierConfig,
      user: 'system:kube-proxy',
    });
    [a, b, remote, x] = await Promise.all([node.addPod('a'), node.addPod('b'), node.addPod('r', 'node-b'), node.addPod('x')]);
    proxy = await startProxyProcess(node, proxierConfig);
  }, 60_000);

  afterAll(async () => {
    await proxy?.stop();
    client?.close();
    await apiserver?.stop();
    node?.destroy();
  });

  it('sends ClusterIP traffic to ready endpoints at random, over TCP and UDP', async () => {
    const web = await createService('web', {
      ports: [
        { name: 'tcp', port: 80, targetPort: POD_PORT },
        { name: 'udp', port: 53, protocol: 'UDP', targetPort: POD_PORT },
      ],
    });
    await putSlice(
      'web',
      [{ pod: a }, { pod: b }],
      [
        { name: 'tcp', port: POD_PORT, protocol: 'TCP' },
        { name: 'udp', port: POD_PORT, protocol: 'UDP' },
      ],
    );
    await until('web answers', () => x.tcp(clusterIP(web), 80));
    const counts = tally(await answers(x, clusterIP(web), 80, 40));
    expect(Object.keys(counts).sort()).toEqual(['a', 'b']);
    expect(Math.min(counts.a, counts.b)).toBeGreaterThanOrEqual(6);
    // The pods see the client's own address: pod-to-service traffic is not masqueraded.
    expect(parse(await x.tcp(clusterIP(web), 80)).client).toBe(x.ip);
    expect(['a', 'b']).toContain(parse(await x.udp(clusterIP(web), 53)).pod);
  });

  it('gives an unready endpoint no traffic, and uses serving terminating endpoints only when no endpoint is ready', async () => {
    const svc = await createService('readiness', {});
    await putSlice('readiness', [{ pod: a }, { pod: b, ready: false, serving: false }]);
    await until('readiness answers', () => x.tcp(clusterIP(svc), 80));
    expect(new Set(await answers(x, clusterIP(svc), 80, 20))).toEqual(new Set(['a']));

    await putSlice('readiness', [
      { pod: a, ready: false, serving: false, terminating: true },
      { pod: b, ready: false, serving: true, terminating: true },
    ]);
    await until('traffic drains to the serving terminating endpoint', async () => ((await x.tcp(clusterIP(svc), 80)).startsWith('b ') ? true : undefined));
    expect(new Set(await answers(x, clusterIP(svc), 80, 10))).toEqual(new Set(['b']));
  });

  it('keeps a client on one endpoint with sessionAffinity ClientIP', async () => {
    const svc = await createService('sticky', { sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } } });
    await putSlice('sticky', [{ pod: a }, { pod: b }]);
    await until('sticky answers', () => x.tcp(clusterIP(svc), 80));
    const seen = new Set(await answers(x, clusterIP(svc), 80, 20));
    expect(seen.size).toBe(1);
    // Another client is balanced on its own.
    expect(['a', 'b']).toContain(parse(await remote.tcp(clusterIP(svc), 80)).pod);
  });

  it('serves a NodePort on the node address, masqueraded, and not on 127.0.0.1', async () => {
    const svc = await createService('np', { type: 'NodePort' });
    await putSlice('np', [{ pod: a }, { pod: b }]);
    const nodePort = svc.spec!.ports![0].nodePort!;
    const answer = parse(await until('the node port answers', () => tcpFromHost(node.nodeIp, nodePort)));
    expect(['a', 'b']).toContain(answer.pod);
    // Cluster policy: the endpoint may be on another node, so the source is the node's.
    expect(answer.client).toBe(node.bridgeIp);
    // nftables does not serve node ports on loopback (as Kubernetes documents).
    await expect(x.tcp('127.0.0.1', nodePort, 500)).rejects.toThrow();
    const fromNode = node.exec(['nft', 'list', 'set', 'ip', 'svc-proxy', 'nodeport-ips']);
    expect(fromNode).toContain(node.nodeIp);
    expect(fromNode).not.toContain('127.0.0.1');
  });

  it('with externalTrafficPolicy Local sends node port traffic to local endpoints only, keeping the source, and drops it where there is none', async () => {
    const svc = await createService('local-ext', { type: 'NodePort', externalTrafficPolicy: 'Local' });
    await putSlice('local-ext', [{ pod: a }, { pod: remote }]);
    const nodePort = svc.spec!.ports![0].nodePort!;
    await until('the node port answers', () => tcpFromHost(node.nodeIp, nodePort));
    for (let i = 0; i < 10; i++) {
      const answer = parse(await tcpFromHost(node.nodeIp, nodePort));
      expect(answer).toEqual({ pod: 'a', client: node.hostIp });
    }
    // The cluster IP still balances over every endpoint.
    expect(new Set(await answers(x, clusterIP(svc), 80, 30))).toEqual(new Set(['a', 'r']));

    await putSlice('local-ext', [{ pod: remote }]);
    await until('the node port drops', async () =>
      tcpFromHost(node.nodeIp, nodePort, 300).then(
        () => undefined,
        (e: Error) => (e.message === 'timeout' ? true : undefined),
      ),
    );
    await expect(tcpFromHost(node.nodeIp, nodePort, 500)).rejects.toThrow('timeout');
    expect(parse(await x.tcp(clusterIP(svc), 80)).pod).toBe('r');
  });

  it('with internalTrafficPolicy Local sends cluster IP traffic to local endpoints only', async () => {
    const svc = await createService('local-int', { internalTrafficPolicy: 'Local' });
    await putSlice('local-int', [{ pod: a }, { pod: remote }]);
    await until('local-int answers', () => x.tcp(clusterIP(svc), 80));
    expect(new Set(await answers(x, clusterIP(svc), 80, 15))).toEqual(new Set(['a']));
    await putSlice('local-int', [{ pod: remote }]);
    await until('local-int drops', async () =>
      x.tcp(clusterIP(svc), 80, 300).then(
        () => undefined,
        () => true,
      ),
    );
  });

  it('masquerades hairpin traffic: a pod reaches itself through its Service', async () => {
    const svc = await createService('hairpin', {});
    await putSlice('hairpin', [{ pod: a }]);
    const answer = parse(await until('the pod reaches itself', () => a.tcp(clusterIP(svc), 80)));
    expect(answer).toEqual({ pod: 'a', client: node.bridgeIp });
  });

  it('rejects connections to a Service with no endpoints, and ignores headless Services', async () => {
    const empty = await createService('empty', {});
    await until('the empty service rejects', async () =>
      x.tcp(clusterIP(empty), 80, 500).then(
        () => undefined,
        (e: Error) => (/ECONNREFUSED/.test(e.message) ? true : undefined),
      ),
    );
    await createService('headless', { clusterIP: 'None' });
    await putSlice('headless', [{ pod: a }]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(node.exec(['nft', 'list', 'table', 'ip', 'svc-proxy'])).not.toContain('default/headless');
  });

  it('moves traffic within a second of an EndpointSlice change reaching a quiet proxy', async () => {
    const svc = await createService('moving', {});
    await putSlice('moving', [{ pod: a }]);
    await until('moving answers', () => x.tcp(clusterIP(svc), 80));
    for (const [to, pods] of [
      ['b', [{ pod: b }]],
      ['a', [{ pod: a }]],
    ] as const) {
      // Syncs follow each other at most once a --iptables-min-sync-period (1s) after a burst of two,
      // as kube-proxy's: measure a change that reaches a proxy that has been quiet that long.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await putSlice('moving', [...pods]);
      const changed = Date.now();
      await until(`traffic moves to ${to}`, async () => (parse(await x.tcp(clusterIP(svc), 80)).pod === to ? true : undefined), 1_000);
      expect(Date.now() - changed).toBeLessThan(1_000);
    }
  });

  it('routes the kubernetes Service to the API server', async () => {
    const kubernetes = await client.services.get('kubernetes', { namespace: 'default' });
    await expect(until('the API server is reached', () => x.connect(clusterIP(kubernetes), 443))).resolves.toBe(true);
  });

  it('reports what it cannot program in an Event on the Service and programs the rest', async () => {
    const external = node.externalIp;
    await createService('dup-a', { externalIPs: [external] });
    await createService('dup-b', { externalIPs: [external] });
    await putSlice('dup-a', [{ pod: a }]);
    await putSlice('dup-b', [{ pod: b }]);
    const event = await until('a PortConflict Event on dup-b', async () => {
      const list = await client.events.list({ namespace: NS, fieldSelector: 'involvedObject.name=dup-b' });
      return list.items.find((e: Event) => e.reason === 'PortConflict');
    });
    expect(event.type).toBe('Warning');
    expect(event.message).toContain(external);
    expect(event.source?.component).toBe('svc-proxy');
    expect(parse(await until('the external IP answers', () => x.tcp(external, 80))).pod).toBe('a');
    expect(proxy.exitStatus()).toBeUndefined();
  });

  it('serves /healthz and /metrics as kube-proxy does', async () => {
    const healthz = await fetch(`${proxy.healthzUrl}/healthz`);
    expect(healthz.status).toBe(200);
    expect(await healthz.json()).toEqual(expect.objectContaining({ nodeEligible: true, lastUpdated: expect.any(String), currentTime: expect.any(String) }));
    const metrics = await (await fetch(`${proxy.metricsUrl}/metrics`)).text();
    for (const name of [
      'kubeproxy_sync_proxy_rules_duration_seconds_bucket',
      'kubeproxy_sync_proxy_rules_last_timestamp_seconds',
      'kubeproxy_network_programming_duration_seconds',
    ]) {
      expect(metrics).toContain(name);
    }
    expect(metrics).toMatch(/svc_proxy_rules\{family="IPv4",kind="rules"\} [1-9]/);
    expect(await (await fetch(`${proxy.metricsUrl}/proxyMode`)).text()).toBe('nftables');
  });

  it('keeps traffic flowing through a restart: the rules stay, and the new process takes the table over atomically', async () => {
    const svc = await createService('restart', {});
    await putSlice('restart', [{ pod: a }, { pod: b }]);
    await until('restart answers', () => x.tcp(clusterIP(svc), 80));
    const held = await x.open(clusterIP(svc), 80);
    let failures = 0;
    let attempts = 0;
    let running = true;
    const load = (async () => {
      while (running) {
        attempts++;
        await x.tcp(clusterIP(svc), 80, 1000).catch(() => failures++);
      }
    })();
    await proxy.stop();
    await new Promise((resolve) => setTimeout(resolve, 300));
    proxy = await startProxyProcess(node, proxierConfig);
    await new Promise((resolve) => setTimeout(resolve, 300));
    running = false;
    await load;
    expect(attempts).toBeGreaterThan(10);
    expect(failures).toBe(0);
    expect(await x.send(held.handle, 'still there')).toMatch(/^[ab] still there$/);
    await x.close(held.handle);
  });

  it('--cleanup removes its table and leaves other tables alone', async () => {
    const svc = await client.services.get('web', { namespace: NS });
    node.exec(['nft', 'add', 'table', 'ip', 'svcpx-other']);
    await proxy.stop();
    const result = runProxyCommand(node, ['--cleanup']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('removed nftables table ip svc-proxy');
    const tables = node.exec(['nft', 'list', 'tables']);
    expect(tables).not.toContain('svc-proxy');
    expect(tables).toContain('svcpx-other');
    await expect(x.tcp(clusterIP(svc), 80, 500)).rejects.toThrow();
  });

  describe('in the iptables mode (for hosts without nftables)', () => {
    beforeAll(async () => {
      proxy = await startProxyProcess(node, proxierConfig, ['--proxy-mode=iptables']);
    }, 30_000);

    it('routes the same Services: balance, readiness, affinity, node ports and their traffic policy', async () => {
      expect(await (await fetch(`${proxy.metricsUrl}/proxyMode`)).text()).toBe('iptables');
      const ip = async (name: string) => clusterIP(await client.services.get(name, { namespace: NS }));
      const counts = tally(await answers(x, await ip('web'), 80, 40));
      expect(Object.keys(counts).sort()).toEqual(['a', 'b']);
      expect(Math.min(counts.a, counts.b)).toBeGreaterThanOrEqual(6);
      expect(['a', 'b']).toContain(parse(await x.udp(await ip('web'), 53)).pod);
      expect(new Set(await answers(x, await ip('sticky'), 80, 15)).size).toBe(1);

      const np = await client.services.get('np', { namespace: NS });
      expect(parse(await tcpFromHost(node.nodeIp, np.spec!.ports![0].nodePort!)).client).toBe(node.bridgeIp);
      const local = await client.services.get('local-ext', { namespace: NS });
      const nodePort = local.spec!.ports![0].nodePort!;
      await expect(tcpFromHost(node.nodeIp, nodePort, 500)).rejects.toThrow('timeout');
      await putSlice('local-ext', [{ pod: a }, { pod: remote }]);
      await until('the local endpoint answers', () => tcpFromHost(node.nodeIp, nodePort));
      expect(parse(await tcpFromHost(node.nodeIp, nodePort))).toEqual({ pod: 'a', client: node.hostIp });

      await putSlice('readiness', [{ pod: a }, { pod: b, ready: false, serving: false }]);
      await until('only the ready endpoint answers', async () => {
        const seen = new Set(await answers(x, await ip('readiness'), 80, 10));
        return seen.size === 1 && seen.has('a') ? true : undefined;
      });
      const hairpin = parse(await a.tcp(await ip('hairpin'), 80));
      expect(hairpin).toEqual({ pod: 'a', client: node.bridgeIp });
      const metrics = await (await fetch(`${proxy.metricsUrl}/metrics`)).text();
      expect(metrics).toMatch(/kubeproxy_sync_proxy_rules_iptables_total\{table="nat"\} [1-9]/);
    });

    it('--cleanup removes its chains and the jumps to them, and leaves other rules alone', async () => {
      node.exec(['iptables', '-t', 'filter', '-N', 'SVCPXOTHER']);
      node.exec(['iptables', '-t', 'filter', '-A', 'INPUT', '-j', 'SVCPXOTHER']);
      await proxy.stop();
      const result = runProxyCommand(node, ['--cleanup']);
      expect(result.status).toBe(0);
      const saved = node.exec(['iptables-save']);
      expect(saved).not.toContain('SVCP-');
      expect(saved).not.toContain('svc-proxy');
      expect(saved).toContain('-A INPUT -j SVCPXOTHER');
      await expect(x.tcp(clusterIP(await client.services.get('web', { namespace: NS })), 80, 500)).rejects.toThrow();
    });
  });
});
