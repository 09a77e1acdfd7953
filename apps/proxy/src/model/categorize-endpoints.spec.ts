import { service, slice, stateOf } from '../testing/proxy-fixtures';
import { categorizeEndpoints } from './categorize-endpoints';
import type { EndpointSpec } from '../testing/proxy-fixtures';

function categorize(spec: Parameters<typeof service>[1], endpoints: EndpointSpec[], zone?: string) {
  const { state } = stateOf([service('s', spec)], [slice('s', endpoints)]);
  const result = categorizeEndpoints([...state.endpoints.values()][0] ?? [], state.ports[0], zone);
  const ips = (list: readonly { ip: string }[]) => list.map((e) => e.ip);
  return { cluster: ips(result.cluster), local: ips(result.local), reachable: ips(result.reachable), hasAny: result.hasAny };
}

describe('categorizeEndpoints (pkg/proxy/topology.go)', () => {
  it('uses ready endpoints for Cluster policy, and serving terminating ones only when none is ready', () => {
    expect(categorize({}, [{ ip: '10.0.0.1' }, { ip: '10.0.0.2', ready: false, serving: true, terminating: true }])).toEqual({
      cluster: ['10.0.0.1'],
      local: [],
      reachable: ['10.0.0.1'],
      hasAny: true,
    });
    expect(
      categorize({}, [
        { ip: '10.0.0.2', ready: false, serving: true, terminating: true },
        { ip: '10.0.0.3', ready: false },
      ]).cluster,
    ).toEqual(['10.0.0.2']);
    expect(categorize({}, [{ ip: '10.0.0.3', ready: false }]).hasAny).toBe(false);
  });

  it('chooses local endpoints apart for Local policy, falling back to local terminating ones', () => {
    const spec = { type: 'NodePort' as const, externalTrafficPolicy: 'Local' as const, ports: [{ name: 'p80', port: 80, nodePort: 30080 }] };
    expect(
      categorize(spec, [
        { ip: '10.0.0.1', node: 'node-b' },
        { ip: '10.0.0.2', ready: false, serving: true, terminating: true },
      ]),
    ).toEqual({
      cluster: ['10.0.0.1'],
      local: ['10.0.0.2'],
      reachable: ['10.0.0.1', '10.0.0.2'],
      hasAny: true,
    });
    expect(categorize(spec, [{ ip: '10.0.0.1', node: 'node-b' }]).local).toEqual([]);
  });

  it('follows zone hints when every ready endpoint has one and one names this zone', () => {
    const endpoints = [
      { ip: '10.0.0.1', zones: ['zone-a'] },
      { ip: '10.0.0.2', zones: ['zone-b'] },
    ];
    expect(categorize({}, endpoints, 'zone-a').cluster).toEqual(['10.0.0.1']);
    expect(categorize({}, endpoints, 'zone-c').cluster).toEqual(['10.0.0.1', '10.0.0.2']);
    expect(categorize({}, [...endpoints, { ip: '10.0.0.3' }], 'zone-a').cluster).toEqual(['10.0.0.1', '10.0.0.2', '10.0.0.3']);
  });
});
