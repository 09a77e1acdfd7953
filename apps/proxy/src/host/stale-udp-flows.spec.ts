import { service, slice, stateOf } from '../testing/proxy-fixtures';
import { staleUdpDeletions, udpSnapshot } from './stale-udp-flows';

describe('stale UDP flows', () => {
  const dns = service('dns', { type: 'NodePort', ports: [{ name: 'p80', port: 53, protocol: 'UDP', nodePort: 30053 }] });
  const ports = [{ name: 'p80', port: 5353, protocol: 'UDP' as const }];
  const snapshot = (ips: string[]) =>
    udpSnapshot(
      stateOf(
        [dns],
        [
          slice(
            'dns',
            ips.map((ip) => ({ ip })),
            ports,
          ),
        ],
      ).state,
    );

  it('deletes the flows to an endpoint that went', () => {
    expect(staleUdpDeletions(snapshot(['10.244.1.2', '10.244.1.3']), snapshot(['10.244.1.3']))).toEqual([
      ['-p', 'udp', '--orig-dst', '10.96.0.10', '--orig-port-dst', '53', '--dst-nat', '10.244.1.2'],
      ['-p', 'udp', '--orig-port-dst', '30053', '--dst-nat', '10.244.1.2'],
    ]);
  });

  it('deletes the flows of a port that had no endpoint and now has one (they hold the rejection)', () => {
    expect(staleUdpDeletions(snapshot([]), snapshot(['10.244.1.3']))).toEqual([
      ['-p', 'udp', '--orig-dst', '10.96.0.10', '--orig-port-dst', '53'],
      ['-p', 'udp', '--orig-port-dst', '30053'],
    ]);
    expect(staleUdpDeletions(snapshot(['10.244.1.3']), snapshot(['10.244.1.3']))).toEqual([]);
  });
});
