import type { Node } from '@svc/api';
import { localTrafficFor, nodePortAddressesFor, primaryNodeIPs } from './node-addresses';

describe('node addresses', () => {
  const node: Node = {
    metadata: { name: 'node-a' },
    spec: { podCIDRs: ['10.244.3.0/24', 'fd00:3::/64'] },
    status: {
      addresses: [
        { type: 'Hostname', address: 'node-a' },
        { type: 'ExternalIP', address: '203.0.113.9' },
        { type: 'InternalIP', address: '192.168.1.10' },
      ],
    },
  };
  const local = new Map([
    ['IPv4' as const, ['127.0.0.1', '192.168.1.10', '10.244.3.1']],
    ['IPv6' as const, ['::1']],
  ]);

  it('takes the primary IP from --bind-address, else the Node InternalIP, else its ExternalIP', () => {
    expect(primaryNodeIPs('0.0.0.0', node)).toEqual(new Map([['IPv4', '192.168.1.10']]));
    expect(primaryNodeIPs('192.168.1.99', node).get('IPv4')).toBe('192.168.1.99');
    expect(primaryNodeIPs('', { status: { addresses: [{ type: 'ExternalIP', address: '203.0.113.9' }] } }).get('IPv4')).toBe('203.0.113.9');
  });

  it('answers NodePorts on the primary IP by default in nftables mode, on every address in iptables mode, never on loopback', () => {
    const primary = primaryNodeIPs('0.0.0.0', node);
    expect(nodePortAddressesFor([], true, 'IPv4', primary, local)).toEqual({ addresses: ['192.168.1.10'], skippedLoopback: false });
    expect(nodePortAddressesFor([], false, 'IPv4', primary, local).addresses).toBe('all');
    expect(nodePortAddressesFor(['192.168.0.0/16', '127.0.0.0/8'], true, 'IPv4', primary, local)).toEqual({
      addresses: ['192.168.1.10'],
      skippedLoopback: true,
    });
    expect(nodePortAddressesFor(['0.0.0.0/0'], true, 'IPv4', primary, local).addresses).toBe('all');
    expect(nodePortAddressesFor(['primary'], true, 'IPv4', new Map([['IPv4', '127.0.0.1']]), local)).toEqual({ addresses: [], skippedLoopback: true });
  });

  it('tells pod traffic by the cluster range, the Node pod range or the interface', () => {
    const settings = { clusterCidr: '10.244.0.0/16,fd00::/48', detectLocalMode: 'ClusterCIDR' as const };
    expect(localTrafficFor(settings, node, 'IPv6')).toEqual({ kind: 'cidr', cidrs: ['fd00::/48'] });
    expect(localTrafficFor({ ...settings, detectLocalMode: 'NodeCIDR' }, node, 'IPv4')).toEqual({ kind: 'cidr', cidrs: ['10.244.3.0/24'] });
    expect(localTrafficFor({ ...settings, detectLocalMode: 'NodeCIDR' }, undefined, 'IPv4')).toEqual({ kind: 'none' });
    expect(localTrafficFor({ ...settings, detectLocalMode: 'BridgeInterface', podBridgeInterface: 'cni0' }, node, 'IPv4')).toEqual({
      kind: 'interface',
      name: 'cni0',
    });
  });
});
