import { CONFIG, service, slice, stateOf } from '../testing/proxy-fixtures';
import { restoreInput, splitRule } from './iptables-backend';
import { iptablesRules, NODEPORTS, SERVICES } from './iptables-rules';

describe("iptablesRules: kube-proxy's iptables mode under the SVCP- prefix", () => {
  const web = service('web', { type: 'NodePort', sessionAffinity: 'ClientIP', ports: [{ name: 'p80', port: 80, nodePort: 30080 }] });
  const { state } = stateOf([web], [slice('web', [{ ip: '10.244.1.2' }, { ip: '10.244.1.3' }, { ip: '10.244.1.4' }])]);
  const { rules } = iptablesRules(CONFIG, state, true);

  it('jumps from SERVICES to a chain per service port that picks endpoints with falling probabilities after affinity', () => {
    const toSvc = rules.nat.get(SERVICES)!.find((r) => r.includes('-d 10.96.0.10'))!;
    const svc = /-j (SVCP-SVC-\S+)$/.exec(toSvc)![1];
    expect(svc.length).toBeLessThanOrEqual(28);
    const picks = rules.nat.get(svc)!;
    expect(picks[0]).toBe('-m comment --comment "ns1/web:p80 cluster IP" -p tcp -m tcp -d 10.96.0.10 --dport 80 ! -s 10.244.0.0/16 -j SVCP-MARK-MASQ');
    expect(picks.filter((r) => r.includes('--rcheck --seconds 10800 --reap'))).toHaveLength(3);
    expect(picks.filter((r) => r.includes('-m statistic')).map((r) => /--probability (\S+)/.exec(r)![1])).toEqual(['0.3333333333', '0.5000000000']);
    const sep = /-j (SVCP-SEP-\S+)$/.exec(picks[picks.length - 1])![1];
    expect(rules.nat.get(sep)).toEqual([
      '-m comment --comment "ns1/web:p80" -s 10.244.1.4 -j SVCP-MARK-MASQ',
      `-m comment --comment "ns1/web:p80" -m recent --name ${sep} --mask 255.255.255.255 --rsource --set -p tcp -m tcp -j DNAT --to-destination 10.244.1.4:8080`,
    ]);
  });

  it('sends node ports through the external chain, after every service IP', () => {
    expect(rules.nat.get(NODEPORTS)).toEqual([expect.stringMatching(/--dport 30080 -j SVCP-EXT-/)]);
    expect(rules.nat.get(SERVICES)!.at(-1)).toBe(
      '-m comment --comment "service nodeports; this must be the last rules in this chain" -d 192.168.1.10 -j SVCP-NODEPORTS',
    );
  });

  it('rejects a port with no endpoints in the filter table', () => {
    const empty = iptablesRules(CONFIG, stateOf([service('empty')], []).state, false).rules;
    expect(empty.filter.get(SERVICES)).toEqual(['-m comment --comment "ns1/empty:p80 has no endpoints" -p tcp -m tcp -d 10.96.0.10 --dport 80 -j REJECT']);
  });

  it('restores only changed chains, and deletes stale ones in the same commit', () => {
    const before = rules.nat;
    const after = iptablesRules(CONFIG, stateOf([web], [slice('web', [{ ip: '10.244.1.2' }])]).state, true).rules.nat;
    const { input } = restoreInput('nat', after, before, new Set());
    const lines = input.trim().split('\n');
    expect(lines[0]).toBe('*nat');
    expect(lines.at(-1)).toBe('COMMIT');
    expect(lines.filter((l) => l.startsWith('-X '))).toHaveLength(2);
    expect(lines).not.toContain(`:${SERVICES} - [0:0]`);
    expect(restoreInput('nat', after, after, new Set()).input).toBe('');
  });

  it('splits a rule into arguments, keeping quoted comments whole', () => {
    expect(splitRule('-m comment --comment "a b" -j X')).toEqual(['-m', 'comment', '--comment', 'a b', '-j', 'X']);
  });
});
