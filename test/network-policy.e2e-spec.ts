// NetworkPolicy enforcement as a node runs it: the built `svc-proxy` inside a node's network namespace
// (nftables), against a real API server process under RBAC, as system:kube-proxy with the role npm start
// gives it. Pods are network namespaces on the node's bridge with a small TCP server each, registered
// as Pods of this node with their addresses, as the node agent reports them.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { NetworkPolicy, Pod } from '@svc/api';
import { Client, loadClientConfig } from '@svc/client';
import { writeIdentityConnectionFile } from '@svc/apiserver';
import { ensureDebianPackages } from '@svc/cri';
import { NetnsNode, netnsPrefix, netnsUnavailable, POD_PORT, type NetnsPod } from '../bench/support/netns-network';
import { startApiServerProcess, type ApiServerProcess } from './support/apiserver-process';
import { startProxyProcess, type ProxyProcess } from './support/proxy-process';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureNetworkPolicyRole } = require('../bin/network-policy-role') as { ensureNetworkPolicyRole: (config: string) => Promise<void> };

const unavailable =
  netnsUnavailable() ??
  ensureDebianPackages([
    { name: 'nftables', provides: '/usr/sbin/nft' },
    { name: 'conntrack', provides: '/usr/sbin/conntrack' },
  ]);
if (unavailable) console.log(`NetworkPolicy end-to-end tests skipped: ${unavailable}`);
const describeNetns = unavailable ? describe.skip : describe;

const NS = 'default';
const SERVICE_CIDR = '10.96.0.0/16';

/** Whether `from` reaches `to`'s server now (a dropped SYN times out after `timeoutMs`). */
async function reaches(from: NetnsPod, to: NetnsPod, timeoutMs = 400): Promise<boolean> {
  try {
    return (await from.tcp(to.ip, POD_PORT, timeoutMs)).startsWith(`${to.name} `);
  } catch {
    return false;
  }
}

/** Waits until `from` reaching `to` is `expected`; the milliseconds it took. */
async function untilReach(from: NetnsPod, to: NetnsPod, expected: boolean, timeoutMs = 5_000): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if ((await reaches(from, to)) === expected) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${from.name} -> ${to.name} did not become ${expected ? 'reachable' : 'unreachable'} in ${timeoutMs} ms`);
}

describeNetns('NetworkPolicies enforced by svc-proxy (network namespaces, nftables)', () => {
  const prefix = netnsPrefix();
  let node: NetnsNode;
  let apiserver: ApiServerProcess;
  let client: Client;
  let proxy: ProxyProcess;
  let a: NetnsPod;
  let b: NetnsPod;

  /** Registers a stand-in pod as a running Pod of the node, with its address and labels. */
  async function register(pod: NetnsPod, labels: Record<string, string>): Promise<void> {
    const body: Pod = {
      metadata: { name: pod.name, namespace: NS, labels },
      spec: { nodeName: node.name, containers: [{ name: 'app', image: 'busybox', ports: [{ name: 'http', containerPort: POD_PORT }] }] },
    };
    await client.pods.create(body, { namespace: NS });
    await client.pods.patchStatus(pod.name, { status: { phase: 'Running', podIP: pod.ip, podIPs: [{ ip: pod.ip }] } }, 'merge', { namespace: NS });
  }

  const policy = (name: string, spec: NetworkPolicy['spec']) => client.networkPolicies.create({ metadata: { name, namespace: NS }, spec }, { namespace: NS });

  beforeAll(async () => {
    node = NetnsNode.create(prefix, 'node-a', SERVICE_CIDR);
    apiserver = await startApiServerProcess({
      args: [`--bind-address=${node.hostIp}`, '--authorization-mode=RBAC', `--service-cluster-ip-range=${SERVICE_CIDR}`],
    });
    client = new Client(await loadClientConfig({ svcconfig: apiserver.kubeconfig }));
    await ensureNetworkPolicyRole(apiserver.kubeconfig);
    const proxyConfig = join(apiserver.dir, 'proxy.svcconfig');
    await writeIdentityConnectionFile({
      connectionFile: apiserver.kubeconfig,
      certDir: join(apiserver.dir, 'certs'),
      path: proxyConfig,
      user: 'system:kube-proxy',
    });
    [a, b] = await Promise.all([node.addPod('a'), node.addPod('b')]);
    await register(a, { app: 'a' });
    await register(b, { app: 'b' });
    proxy = await startProxyProcess(node, proxyConfig);
  }, 120_000);

  afterAll(async () => {
    await proxy?.stop();
    client?.close();
    await apiserver?.stop();
    node?.destroy();
  });

  it('a default deny stops traffic between two pods within a second, an allow rule brings it back, and the node still reaches them', async () => {
    expect(await reaches(a, b)).toBe(true);
    await policy('default-deny', { podSelector: {}, policyTypes: ['Ingress'] });
    expect(await untilReach(a, b, false)).toBeLessThan(1_500);
    expect(await reaches(b, a)).toBe(false);

    // The node itself is never cut off from its pods.
    const fromNode = spawnSync(
      'ip',
      [
        'netns',
        'exec',
        node.netns,
        process.execPath,
        '-e',
        `require('net').connect(${POD_PORT}, '${b.ip}').once('data', (d) => (console.log(String(d).split(' ')[0]), process.exit(0)))`,
      ],
      { encoding: 'utf8', timeout: 5_000 },
    );
    expect(fromNode.stdout.trim()).toBe('b');

    await policy('allow-a-to-b', {
      podSelector: { matchLabels: { app: 'b' } },
      ingress: [{ from: [{ podSelector: { matchLabels: { app: 'a' } } }], ports: [{ port: 'http' }] }],
    });
    expect(await untilReach(a, b, true)).toBeLessThan(1_500);
    // Only that way: b to a stays denied.
    expect(await reaches(b, a)).toBe(false);
  }, 30_000);

  it('egress rules and ipBlock peers with exceptions', async () => {
    await policy('a-egress', {
      podSelector: { matchLabels: { app: 'a' } },
      policyTypes: ['Egress'],
      egress: [{ to: [{ ipBlock: { cidr: `${b.ip}/32` } }], ports: [{ port: 9 }] }],
    });
    await untilReach(a, b, false);
    await client.networkPolicies.patch(
      'a-egress',
      { spec: { egress: [{ to: [{ ipBlock: { cidr: node.podCidr, except: [`${a.ip}/32`] } }], ports: [{ port: POD_PORT - 5, endPort: POD_PORT + 5 }] }] } },
      'merge',
      { namespace: NS },
    );
    await untilReach(a, b, true);
    await client.networkPolicies.delete('default-deny', { namespace: NS });
    await client.networkPolicies.delete('allow-a-to-b', { namespace: NS });
    await untilReach(b, a, true);
    const table = node.exec(['nft', 'list', 'table', 'ip', 'svc-netpol']);
    expect(table).toContain('egress-pods');
  }, 30_000);
});
