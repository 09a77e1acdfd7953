import { CONFIG, service, slice, stateOf } from '../testing/proxy-fixtures';
import { nftablesRules } from './nft-rules';
import { planTransaction, type NftTable } from './nft-table';

function rules(table: NftTable, prefix: string): string[] {
  const chains = [...table.chains.values()].filter((c) => c.name.startsWith(prefix));
  expect(chains).toHaveLength(1);
  return [...chains[0].rules];
}

function chainsOf(table: NftTable, prefix: string): string[] {
  return [...table.chains.keys()].filter((n) => n.startsWith(prefix)).sort();
}

describe("nftablesRules: the table kube-proxy's nftables mode would write", () => {
  it('maps a cluster IP and port to its service chain, which picks an endpoint chain at random', () => {
    const { state } = stateOf([service('web')], [slice('web', [{ ip: '10.244.1.2' }, { ip: '10.244.2.3', node: 'node-b' }])]);
    const { table } = nftablesRules(CONFIG, state);
    const svc = [...table.chains.keys()].find((n) => n.startsWith('service-'))!;
    expect(svc).toMatch(/^service-[A-Z2-7]{8}-ns1\/web\/tcp\/p80$/);
    expect(table.maps.get('service-ips')!.elements).toEqual(new Map([['10.96.0.10 . tcp . 80', `goto ${svc}`]]));
    const endpoints = chainsOf(table, 'endpoint-');
    expect(endpoints).toHaveLength(2);
    expect(table.chains.get(svc)!.rules).toEqual([
      'ip daddr 10.96.0.10 tcp dport 80 ip saddr != 10.244.0.0/16 jump mark-for-masquerade',
      `numgen random mod 2 vmap { 0 : goto ${endpoints.find((e) => e.includes('10.244.1.2'))}, 1 : goto ${endpoints.find((e) => e.includes('10.244.2.3'))} }`,
    ]);
    expect(table.chains.get(endpoints.find((e) => e.includes('10.244.1.2'))!)!.rules).toEqual([
      'ip saddr 10.244.1.2 jump mark-for-masquerade',
      'meta l4proto tcp dnat to 10.244.1.2:8080',
    ]);
    expect(table.sets.get('cluster-ips')!.elements).toEqual(['10.96.0.10']);
    expect(table.maps.get('no-endpoint-services')!.elements.size).toBe(0);
  });

  it('lays out the fixed chains on the netfilter hooks with masquerading by mark', () => {
    const { table } = nftablesRules(CONFIG, { ports: [], endpoints: new Map() });
    expect(table.chains.get('nat-prerouting')).toEqual({
      name: 'nat-prerouting',
      hook: { type: 'nat', hook: 'prerouting', priority: -100 },
      rules: ['jump services'],
    });
    expect(table.chains.get('nat-postrouting')!.hook).toEqual({ type: 'nat', hook: 'postrouting', priority: 100 });
    expect(table.chains.get('filter-input')!.rules).toEqual(['ct state new jump endpoints-check']);
    expect(table.chains.get('masquerading')!.rules).toEqual([
      'meta mark & 0x00004000 == 0 return',
      'meta mark set meta mark xor 0x00004000',
      'masquerade fully-random',
    ]);
    expect(table.chains.get('services')!.rules).toEqual([
      'ip daddr . meta l4proto . th dport vmap @service-ips',
      'ip daddr @nodeport-ips meta l4proto . th dport vmap @service-nodeports',
    ]);
    expect(table.sets.get('nodeport-ips')!.elements).toEqual(['192.168.1.10']);
  });

  it('takes NodePorts on every local address but loopback when told all', () => {
    const { table } = nftablesRules({ ...CONFIG, nodePortAddresses: 'all' }, { ports: [], endpoints: new Map() });
    expect(table.sets.has('nodeport-ips')).toBe(false);
    expect(table.chains.get('services')!.rules[1]).toBe('fib daddr type local ip daddr != 127.0.0.0/8 meta l4proto . th dport vmap @service-nodeports');
  });

  it('rejects traffic to a port with no endpoint, and programs no chain for it', () => {
    const { state } = stateOf([service('empty', { type: 'NodePort', ports: [{ name: 'p80', port: 80, nodePort: 30080 }] })], []);
    const { table } = nftablesRules(CONFIG, state);
    expect(table.maps.get('no-endpoint-services')!.elements).toEqual(new Map([['10.96.0.10 . tcp . 80', 'goto reject-chain']]));
    expect(table.maps.get('no-endpoint-nodeports')!.elements).toEqual(new Map([['tcp . 30080', 'goto reject-chain']]));
    expect(table.maps.get('service-ips')!.elements.size).toBe(0);
    expect([...table.chains.keys()].filter((n) => n.includes('/'))).toEqual([]);
  });

  it('sends ready endpoints traffic, serving terminating ones only when none is ready, unready ones never', () => {
    const both = stateOf(
      [service('web')],
      [slice('web', [{ ip: '10.244.1.2' }, { ip: '10.244.1.3', ready: false, serving: true, terminating: true }, { ip: '10.244.1.4', ready: false }])],
    );
    expect(chainsOf(nftablesRules(CONFIG, both.state).table, 'endpoint-')).toEqual([expect.stringContaining('10.244.1.2/8080')]);
    const draining = stateOf(
      [service('web')],
      [
        slice('web', [
          { ip: '10.244.1.3', ready: false, serving: true, terminating: true },
          { ip: '10.244.1.4', ready: false },
        ]),
      ],
    );
    expect(chainsOf(nftablesRules(CONFIG, draining.state).table, 'endpoint-')).toEqual([expect.stringContaining('10.244.1.3/8080')]);
  });

  it('remembers ClientIP affinity in a set per endpoint, with the Service timeout', () => {
    const { state } = stateOf(
      [service('sticky', { sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } } })],
      [slice('sticky', [{ ip: '10.244.1.2' }])],
    );
    const { table } = nftablesRules(CONFIG, state);
    const set = [...table.sets.values()].find((s) => s.name.startsWith('affinity-'))!;
    expect(set).toEqual(expect.objectContaining({ type: 'ipv4_addr', dynamicTimeoutSeconds: 60, elements: [] }));
    expect(set.name).toMatch(/^affinity-60-[A-Z2-7]{8}-ns1\/sticky\/tcp\/p80__10\.244\.1\.2\/8080$/);
    const endpoint = chainsOf(table, 'endpoint-')[0];
    expect(rules(table, 'service-')).toEqual([
      'ip daddr 10.96.0.10 tcp dport 80 ip saddr != 10.244.0.0/16 jump mark-for-masquerade',
      `ip saddr @${set.name} goto ${endpoint}`,
      `numgen random mod 1 vmap { 0 : goto ${endpoint} }`,
    ]);
    expect(table.chains.get(endpoint)!.rules).toContain(`update @${set.name} { ip saddr }`);
  });

  it('with externalTrafficPolicy Local sends node port traffic to local endpoints and drops it when there is none', () => {
    const svc = service('local', { type: 'NodePort', externalTrafficPolicy: 'Local', ports: [{ name: 'p80', port: 80, nodePort: 30080 }] });
    const withLocal = nftablesRules(CONFIG, stateOf([svc], [slice('local', [{ ip: '10.244.1.2' }, { ip: '10.244.2.2', node: 'node-b' }])]).state).table;
    const external = rules(withLocal, 'external-');
    const local = chainsOf(withLocal, 'local-')[0];
    const cluster = chainsOf(withLocal, 'service-')[0];
    expect(external).toEqual([
      `ip saddr 10.244.0.0/16 goto ${cluster} comment "short-circuit pod traffic"`,
      'fib saddr type local jump mark-for-masquerade comment "masquerade local traffic"',
      `fib saddr type local goto ${cluster} comment "short-circuit local traffic"`,
      `goto ${local}`,
    ]);
    expect(withLocal.chains.get(local)!.rules).toEqual([expect.stringMatching(/^numgen random mod 1 vmap \{ 0 : goto endpoint-.*10\.244\.1\.2\/8080 \}$/)]);
    expect(withLocal.maps.get('service-nodeports')!.elements.get('tcp . 30080')).toBe(`goto ${chainsOf(withLocal, 'external-')[0]}`);

    const remoteOnly = nftablesRules(CONFIG, stateOf([svc], [slice('local', [{ ip: '10.244.2.2', node: 'node-b' }])]).state);
    expect(remoteOnly.table.maps.get('no-endpoint-nodeports')!.elements).toEqual(new Map([['tcp . 30080', 'drop']]));
    expect(rules(remoteOnly.table, 'external-')).not.toContainEqual(expect.stringMatching(/^goto /));
    expect(remoteOnly.noLocalEndpoints).toEqual({ internal: 0, external: 1 });
    // The cluster IP is not external: it still reaches the remote endpoint.
    expect(remoteOnly.table.maps.get('service-ips')!.elements.get('10.96.0.10 . tcp . 80')).toMatch(/^goto service-/);
  });

  it('with internalTrafficPolicy Local drops cluster IP traffic when no endpoint is local', () => {
    const svc = service('internal', { internalTrafficPolicy: 'Local' });
    const result = nftablesRules(CONFIG, stateOf([svc], [slice('internal', [{ ip: '10.244.2.2', node: 'node-b' }])]).state);
    expect(result.table.maps.get('no-endpoint-services')!.elements).toEqual(new Map([['10.96.0.10 . tcp . 80', 'drop']]));
    expect(result.noLocalEndpoints).toEqual({ internal: 1, external: 0 });
    const local = nftablesRules(CONFIG, stateOf([svc], [slice('internal', [{ ip: '10.244.1.2' }, { ip: '10.244.2.2', node: 'node-b' }])]).state).table;
    expect(local.maps.get('service-ips')!.elements.get('10.96.0.10 . tcp . 80')).toMatch(/^goto local-/);
    expect(chainsOf(local, 'endpoint-')).toEqual([expect.stringContaining('10.244.1.2/8080')]);
  });

  it('programs external and load balancer IPs through the external chain, with source ranges in a firewall chain', () => {
    const svc = service(
      'lb',
      { type: 'LoadBalancer', externalIPs: ['192.0.2.5'], loadBalancerSourceRanges: ['203.0.113.0/24'], ports: [{ name: 'p80', port: 80, nodePort: 30080 }] },
      { loadBalancer: { ingress: [{ ip: '198.51.100.7' }, { ip: '198.51.100.8', ipMode: 'Proxy' }] } },
    );
    const { table } = nftablesRules(CONFIG, stateOf([svc], [slice('lb', [{ ip: '10.244.1.2' }])]).state);
    const external = chainsOf(table, 'external-')[0];
    const firewall = chainsOf(table, 'firewall-')[0];
    expect(table.maps.get('service-ips')!.elements.get('192.0.2.5 . tcp . 80')).toBe(`goto ${external}`);
    expect(table.maps.get('service-ips')!.elements.get('198.51.100.7 . tcp . 80')).toBe(`goto ${external}`);
    expect(table.maps.get('service-ips')!.elements.has('198.51.100.8 . tcp . 80')).toBe(false);
    expect(table.maps.get('firewall-ips')!.elements).toEqual(new Map([['198.51.100.7 . tcp . 80', `goto ${firewall}`]]));
    expect(table.chains.get(firewall)!.rules).toEqual(['ip saddr != { 203.0.113.0/24 } drop']);
    expect(table.chains.get(external)!.rules).toEqual(['jump mark-for-masquerade', `goto ${chainsOf(table, 'service-')[0]}`]);
  });

  it('masquerades everything to a cluster IP with masqueradeAll, and nothing by source without a pod range', () => {
    const { state } = stateOf([service('web')], [slice('web', [{ ip: '10.244.1.2' }])]);
    expect(rules(nftablesRules({ ...CONFIG, masqueradeAll: true }, state).table, 'service-')[0]).toBe(
      'ip daddr 10.96.0.10 tcp dport 80 jump mark-for-masquerade',
    );
    expect(rules(nftablesRules({ ...CONFIG, localTraffic: { kind: 'none' } }, state).table, 'service-')).toHaveLength(1);
    expect(rules(nftablesRules({ ...CONFIG, localTraffic: { kind: 'interface-prefix', prefix: 'veth' } }, state).table, 'service-')[0]).toBe(
      'ip daddr 10.96.0.10 tcp dport 80 iifname != "veth*" jump mark-for-masquerade',
    );
  });

  it('gives a destination claimed twice to the first service port and reports the other', () => {
    const { state } = stateOf(
      [service('a-first', { externalIPs: ['192.0.2.9'] }), service('b-second', { clusterIP: '10.96.0.11', externalIPs: ['192.0.2.9'] })],
      [slice('a-first', [{ ip: '10.244.1.2' }]), slice('b-second', [{ ip: '10.244.1.3' }])],
    );
    const result = nftablesRules(CONFIG, state);
    expect(result.table.maps.get('service-ips')!.elements.get('192.0.2.9 . tcp . 80')).toContain('ns1/a-first/');
    expect(result.problems.get('ns1/b-second')).toEqual([
      { reason: 'PortConflict', message: 'external IP 192.0.2.9 port 80/TCP is already served for ns1/a-first:p80; it is not programmed for ns1/b-second:p80' },
    ]);
    expect(result.problems.has('ns1/a-first')).toBe(false);
  });

  it('writes IPv6 with ip6 matches and bracketed DNAT targets', () => {
    const svc = service('v6', { clusterIP: 'fd00::10', clusterIPs: ['fd00::10'], ipFamilies: ['IPv6'] });
    const { state } = stateOf([svc], [slice('v6', [{ ip: 'fd00:244::2' }], undefined, 'IPv6')], 'IPv6');
    const { table } = nftablesRules({ ...CONFIG, family: 'IPv6', localTraffic: { kind: 'cidr', cidrs: ['fd00:244::/64'] }, nodePortAddresses: [] }, state);
    expect(table.family).toBe('ip6');
    expect(table.maps.get('service-ips')!.type).toBe('ipv6_addr . inet_proto . inet_service : verdict');
    expect(rules(table, 'endpoint-')).toEqual(['ip6 saddr fd00:244::2 jump mark-for-masquerade', 'meta l4proto tcp dnat to [fd00:244::2]:8080']);
    expect(chainsOf(table, 'endpoint-')[0]).toContain('fd00.244..2/8080');
  });
});

describe('planTransaction: one nft transaction from what is applied to what is wanted', () => {
  const web = service('web', { type: 'NodePort', ports: [{ name: 'p80', port: 80, nodePort: 30080 }] });
  const other = service('other', { clusterIP: '10.96.0.20' });
  const before = nftablesRules(CONFIG, stateOf([web, other], [slice('web', [{ ip: '10.244.1.2' }]), slice('other', [{ ip: '10.244.1.9' }])]).state).table;

  it('writes everything on a full sync, refilling each chain, set and map in the same transaction', () => {
    const plan = planTransaction(before, undefined, undefined);
    const lines = plan.script.trim().split('\n');
    expect(lines[0]).toBe('add table ip svc-proxy { comment "rules for svc-proxy"; }');
    expect(lines).toContain('add chain ip svc-proxy nat-prerouting { type nat hook prerouting priority -100; policy accept; }');
    expect(lines).toContain('flush map ip svc-proxy service-ips');
    expect(lines.filter((l) => l.startsWith('add rule '))).toHaveLength([...before.chains.values()].reduce((n, c) => n + c.rules.length, 0));
    expect(lines.some((l) => l.startsWith('delete table') || l.startsWith('flush table'))).toBe(false);
  });

  it('takes over a table left by another process: rewrites it and drops what is no longer wanted, without emptying the table first', () => {
    const existing = {
      chains: new Set([...before.chains.keys(), 'service-OLDOLDOL-ns1/gone/tcp/p80']),
      hooks: new Map([['nat-prerouting', { type: 'nat' as const, hook: 'prerouting' as const, priority: -100 }]]),
      sets: new Map([['affinity-10800-OLD', { type: 'ipv4_addr', timeoutSeconds: 10800 }]]),
      maps: new Map([['service-ips', { type: 'ipv4_addr . inet_proto . inet_service : verdict' }]]),
    };
    const plan = planTransaction(before, undefined, existing);
    const lines = plan.script.trim().split('\n');
    expect(plan.staled).toEqual(['service-OLDOLDOL-ns1/gone/tcp/p80']);
    expect(lines).toContain('flush chain ip svc-proxy service-OLDOLDOL-ns1/gone/tcp/p80');
    expect(lines).toContain('delete set ip svc-proxy affinity-10800-OLD');
    // Flushes come before the rules that refill them, and the old chain is only emptied.
    expect(lines.indexOf('flush chain ip svc-proxy nat-prerouting')).toBeLessThan(lines.indexOf('add rule ip svc-proxy nat-prerouting jump services'));
    expect(lines.some((l) => l.startsWith('delete chain'))).toBe(false);
  });

  it('writes only what an endpoint change touches', () => {
    const after = nftablesRules(CONFIG, stateOf([web, other], [slice('web', [{ ip: '10.244.1.3' }]), slice('other', [{ ip: '10.244.1.9' }])]).state).table;
    const plan = planTransaction(after, before, undefined);
    const lines = plan.script.trim().split('\n');
    const webChain = [...after.chains.keys()].find((n) => n.startsWith('service-') && n.includes('/web/'))!;
    const newEndpoint = [...after.chains.keys()].find((n) => n.includes('10.244.1.3/8080'))!;
    const oldEndpoint = [...before.chains.keys()].find((n) => n.includes('10.244.1.2/8080'))!;
    expect(lines).toEqual([
      `flush chain ip svc-proxy ${webChain}`,
      `flush chain ip svc-proxy ${oldEndpoint}`,
      `add chain ip svc-proxy ${newEndpoint}`,
      `add rule ip svc-proxy ${webChain} ip daddr 10.96.0.10 tcp dport 80 ip saddr != 10.244.0.0/16 jump mark-for-masquerade`,
      `add rule ip svc-proxy ${webChain} numgen random mod 1 vmap { 0 : goto ${newEndpoint} }`,
      `add rule ip svc-proxy ${newEndpoint} ip saddr 10.244.1.3 jump mark-for-masquerade`,
      `add rule ip svc-proxy ${newEndpoint} meta l4proto tcp dnat to 10.244.1.3:8080`,
    ]);
    expect(plan.staled).toEqual([oldEndpoint]);
    expect(plan.script).not.toContain('/other/');
  });

  it('changes map elements one by one when a port loses and regains its endpoints', () => {
    const empty = nftablesRules(CONFIG, stateOf([web, other], [slice('other', [{ ip: '10.244.1.9' }])]).state).table;
    const lines = planTransaction(empty, before, undefined).script.trim().split('\n');
    expect(lines).toContain('delete element ip svc-proxy service-ips { 10.96.0.10 . tcp . 80 }');
    expect(lines).toContain('add element ip svc-proxy no-endpoint-services { 10.96.0.10 . tcp . 80 : goto reject-chain }');
    expect(lines).toContain('add element ip svc-proxy no-endpoint-nodeports { tcp . 30080 : goto reject-chain }');
    expect(lines.some((l) => l.includes('service-ips') && l.includes('10.96.0.20'))).toBe(false);
    const back = planTransaction(before, empty, undefined).script;
    expect(back).toContain('delete element ip svc-proxy no-endpoint-services { 10.96.0.10 . tcp . 80 }');
    expect(back).toMatch(/add element ip svc-proxy service-ips \{ 10\.96\.0\.10 \. tcp \. 80 : goto service-/);
  });

  it('writes nothing when nothing changed', () => {
    expect(planTransaction(before, before, undefined)).toEqual({ script: '', staled: [], commands: 0 });
  });

  it('renames an affinity set when the timeout changes, so that the old one can go', () => {
    const sticky = (seconds: number) =>
      nftablesRules(
        CONFIG,
        stateOf(
          [service('sticky', { sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: seconds } } })],
          [slice('sticky', [{ ip: '10.244.1.2' }])],
        ).state,
      ).table;
    const script = planTransaction(sticky(30), sticky(60), undefined).script;
    expect(script).toMatch(/add set ip svc-proxy affinity-30-\S+ \{ type ipv4_addr; flags dynamic,timeout; timeout 30s; \}/);
    expect(script).toMatch(/delete set ip svc-proxy affinity-60-/);
    expect(script.indexOf('delete set')).toBeGreaterThan(script.lastIndexOf('flush chain'));
  });
});
