import type { Namespace, NetworkPolicy, Pod } from '@svc/api';
import { networkPolicyTable, type PolicyInput } from './network-policy-rules';

const pod = (name: string, ip: string, labels: Record<string, string>, node = 'node-1', namespace = 'shop'): Pod => ({
  metadata: { name, namespace, labels },
  spec: { nodeName: node, containers: [{ name: 'c', image: 'x', ports: [{ name: 'http', containerPort: 8080 }] }] },
  status: { phase: 'Running', podIP: ip, podIPs: [{ ip }] },
});
const ns = (name: string, labels: Record<string, string> = {}): Namespace => ({ metadata: { name, labels } });
const policy = (name: string, spec: NetworkPolicy['spec'], namespace = 'shop'): NetworkPolicy => ({ metadata: { name, namespace }, spec });

function input(policies: NetworkPolicy[]): PolicyInput {
  return {
    policies,
    pods: [
      pod('web', '10.244.0.2', { app: 'web' }),
      pod('db', '10.244.0.3', { app: 'db' }),
      pod('remote', '10.244.1.2', { app: 'web' }, 'node-2'),
      pod('monitor', '10.244.1.3', { app: 'prom' }, 'node-2', 'ops'),
    ],
    namespaces: [ns('shop'), ns('ops', { team: 'ops' })],
    nodeName: 'node-1',
  };
}

function chainOf(table: ReturnType<typeof networkPolicyTable>, direction: 'ingress' | 'egress', ip: string): readonly string[] {
  const verdict = table.maps.get(`${direction}-pods`)?.elements.get(ip);
  if (verdict === undefined) return [];
  return table.chains.get(verdict.replace('jump ', ''))?.rules ?? [];
}

describe('networkPolicyTable', () => {
  it('isolates only the selected pods of this node: a default deny drops all but traffic from their own node', () => {
    const table = networkPolicyTable('IPv4', input([policy('deny', { podSelector: {}, policyTypes: ['Ingress'] })]));
    expect([...table.maps.get('ingress-pods')!.elements.keys()].sort()).toEqual(['10.244.0.2', '10.244.0.3']);
    expect(table.maps.get('egress-pods')!.elements.size).toBe(0);
    expect(chainOf(table, 'ingress', '10.244.0.3')).toEqual([
      'fib saddr type local return comment "from its own node"',
      'drop comment "shop/db: ingress not allowed"',
    ]);
    expect(table.chains.get('forward')).toMatchObject({
      hook: { type: 'filter', hook: 'forward', priority: 0 },
      rules: ['ct state established,related accept', 'ip saddr vmap @egress-pods', 'ip daddr vmap @ingress-pods'],
    });
  });

  it('allows pods by pod and namespace selectors, addresses by CIDR less exceptions, ports, ranges and named ports', () => {
    const table = networkPolicyTable(
      'IPv4',
      input([
        policy('db', {
          podSelector: { matchLabels: { app: 'db' } },
          policyTypes: ['Ingress', 'Egress'],
          ingress: [
            { from: [{ podSelector: { matchLabels: { app: 'web' } } }], ports: [{ protocol: 'TCP', port: 5432 }] },
            { from: [{ namespaceSelector: { matchLabels: { team: 'ops' } } }], ports: [{ protocol: 'TCP', port: 'http' }] },
            { from: [{ ipBlock: { cidr: '192.0.2.0/24', except: ['192.0.2.128/25'] } }], ports: [{ protocol: 'UDP', port: 9000, endPort: 9010 }] },
          ],
          egress: [{ to: [{ podSelector: { matchLabels: { app: 'web' } } }], ports: [{ protocol: 'TCP', port: 'http' }] }],
        }),
      ]),
    );
    expect(chainOf(table, 'ingress', '10.244.0.3')).toEqual([
      'fib saddr type local return comment "from its own node"',
      'ip saddr { 10.244.0.2, 10.244.1.2 } meta l4proto tcp th dport 5432 return',
      'ip saddr { 10.244.1.3 } meta l4proto tcp th dport 8080 return',
      'ip saddr 192.0.2.0/24 ip saddr != { 192.0.2.128/25 } meta l4proto udp th dport 9000-9010 return',
      'drop comment "shop/db: ingress not allowed"',
    ]);
    expect(chainOf(table, 'egress', '10.244.0.3')).toEqual([
      'fib daddr type local return comment "to its own node"',
      'ip daddr { 10.244.0.2 } meta l4proto tcp th dport 8080 return',
      'ip daddr { 10.244.1.2 } meta l4proto tcp th dport 8080 return',
      'drop comment "shop/db: egress not allowed"',
    ]);
    expect(chainOf(table, 'ingress', '10.244.0.2')).toEqual([]);
  });

  it('lets an empty rule allow everything, and leaves an IPv4 block out of the IPv6 table', () => {
    const policies = [policy('all', { podSelector: {}, ingress: [{}, { from: [{ ipBlock: { cidr: '10.0.0.0/8' } }] }] })];
    expect(chainOf(networkPolicyTable('IPv4', input(policies)), 'ingress', '10.244.0.2')).toEqual([
      'fib saddr type local return comment "from its own node"',
      'return',
      'ip saddr 10.0.0.0/8 return',
      'drop comment "shop/web: ingress not allowed"',
    ]);
    expect(networkPolicyTable('IPv6', input(policies)).maps.get('ingress-pods')!.elements.size).toBe(0);
  });
});
