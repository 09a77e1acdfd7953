import type { Service } from '@svc/api';
import { service } from '../testing/proxy-fixtures';
import { servicePortsOf, skipService } from './service-port';

describe('servicePortsOf: what of a Service the proxy programs', () => {
  const kernel = { sctp: true };

  it('takes each port with its cluster IP, node port, affinity and traffic policies', () => {
    const { ports, problems } = servicePortsOf(
      service('web', {
        type: 'NodePort',
        ports: [
          { name: 'http', port: 80, protocol: 'TCP', nodePort: 30080 },
          { name: 'dns', port: 53, protocol: 'UDP', nodePort: 30053 },
        ],
        sessionAffinity: 'ClientIP',
        externalTrafficPolicy: 'Local',
        internalTrafficPolicy: 'Local',
      }),
      'IPv4',
      kernel,
    );
    expect(problems).toEqual([]);
    expect(ports.map((p) => [p.id, p.protocol, p.port, p.nodePort, p.affinityTimeoutSeconds, p.externalPolicyLocal, p.internalPolicyLocal])).toEqual([
      ['ns1/web:http', 'TCP', 80, 30080, 10800, true, true],
      ['ns1/web:dns', 'UDP', 53, 30053, 10800, true, true],
    ]);
  });

  it("programs nothing for headless, ExternalName and other proxies' Services", () => {
    expect(servicePortsOf(service('h', { clusterIP: 'None' }), 'IPv4', kernel).ports).toEqual([]);
    expect(servicePortsOf(service('e', { type: 'ExternalName', externalName: 'example.com', clusterIP: '' }), 'IPv4', kernel).ports).toEqual([]);
    const other: Service = { ...service('o'), metadata: { name: 'o', namespace: 'ns1', labels: { 'service.kubernetes.io/service-proxy-name': 'other' } } };
    expect(skipService(other)).toBe(true);
  });

  it('programs a port only in the family of its cluster IP', () => {
    const dual = service('dual', { clusterIPs: ['10.96.0.10', 'fd00::10'], ipFamilies: ['IPv4', 'IPv6'], externalIPs: ['192.0.2.1', '2001:db8::1'] });
    expect(servicePortsOf(dual, 'IPv6', kernel).ports.map((p) => [p.clusterIP, p.externalIPs])).toEqual([['fd00::10', ['2001:db8::1']]]);
    expect(servicePortsOf(service('v4'), 'IPv6', kernel).ports).toEqual([]);
  });

  it('reports a port of an unknown protocol, or SCTP without kernel support, and programs the others', () => {
    const svc = service('bad', {
      ports: [
        { name: 'ok', port: 80, protocol: 'TCP' },
        { name: 'quic', port: 443, protocol: 'QUIC' as 'TCP' },
        { name: 'sctp', port: 9999, protocol: 'SCTP' },
      ],
    });
    const { ports, problems } = servicePortsOf(svc, 'IPv4', { sctp: false });
    expect(ports.map((p) => p.portName)).toEqual(['ok']);
    expect(problems).toEqual([
      { reason: 'UnsupportedProtocol', message: 'port "quic" (443/QUIC): protocol "QUIC" is not TCP, UDP or SCTP; the port is not programmed' },
      { reason: 'SCTPNotSupported', message: 'port "sctp" (9999/SCTP): this node\'s kernel has no SCTP connection tracking; the port is not programmed' },
    ]);
    expect(servicePortsOf(svc, 'IPv4', { sctp: true }).ports.map((p) => p.portName)).toEqual(['ok', 'sctp']);
  });

  it('reports addresses and ranges that do not parse, and a port out of range', () => {
    const { ports, problems } = servicePortsOf(
      service('odd', {
        type: 'LoadBalancer',
        externalIPs: ['192.0.2.1', 'not-an-ip'],
        loadBalancerSourceRanges: ['10.0.0.0/33'],
        ports: [
          { name: 'a', port: 80, nodePort: 30080 },
          { name: 'b', port: 70000 },
        ],
      }),
      'IPv4',
      kernel,
    );
    expect(ports.map((p) => [p.portName, p.externalIPs, p.loadBalancerSourceRanges])).toEqual([['a', ['192.0.2.1'], []]]);
    expect(problems.map((p) => p.reason)).toEqual(['InvalidIP', 'InvalidSourceRange', 'InvalidPort']);
  });
});
