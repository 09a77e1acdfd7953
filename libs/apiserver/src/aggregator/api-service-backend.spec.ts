import type { Endpoints, Service } from '@svc/api';
import { DEFAULT_IDENTITY_HEADERS, identityHeaders, resolveBackend, type ServiceObjects } from './api-service-backend';

function objects(service: Service | undefined, endpoints?: Endpoints): ServiceObjects {
  return { service: () => service, endpoints: () => endpoints };
}

const service: Service = {
  metadata: { name: 'metrics-server', namespace: 'kube-system' },
  spec: { type: 'ClusterIP', clusterIP: '10.96.0.10', ports: [{ name: 'https', port: 443, targetPort: 10250 }] },
};
const endpoints: Endpoints = {
  metadata: { name: 'metrics-server', namespace: 'kube-system' },
  subsets: [
    { addresses: [], notReadyAddresses: [{ ip: '10.0.0.9' }], ports: [{ name: 'https', port: 10250 }] },
    { addresses: [{ ip: '10.0.0.5' }], ports: [{ name: 'https', port: 10250 }] },
  ],
};
const ref = { namespace: 'kube-system', name: 'metrics-server', port: 443 };

describe('resolving an APIService to its server', () => {
  it('takes a ready address of the endpoints of the service port with endpoint routing, the cluster IP without', () => {
    for (let i = 0; i < 10; i++) {
      expect(resolveBackend(objects(service, endpoints), ref, 'endpoints')).toEqual({
        host: '10.0.0.5',
        port: 10250,
        serverName: 'metrics-server.kube-system.svc',
      });
    }
    expect(resolveBackend(objects(service, endpoints), ref, 'cluster-ip')).toEqual({
      host: '10.96.0.10',
      port: 443,
      serverName: 'metrics-server.kube-system.svc',
    });
  });

  it("says why not, in Kubernetes' words", () => {
    expect(() => resolveBackend(objects(undefined), ref, 'endpoints')).toThrow('service "metrics-server" not found');
    expect(() => resolveBackend(objects(service, endpoints), { ...ref, port: 8443 }, 'endpoints')).toThrow(
      'no service port 8443 found for service "metrics-server"',
    );
    expect(() => resolveBackend(objects(service, { ...endpoints, subsets: [] }), ref, 'endpoints')).toThrow(
      'no endpoints available for service "metrics-server"',
    );
    expect(() => resolveBackend(objects({ ...service, spec: { ...service.spec, clusterIP: 'None' } }), ref, 'cluster-ip')).toThrow(
      'cannot route to service with ClusterIP "None"',
    );
  });
});

describe('identity headers', () => {
  it('carry the user, each group and each extra value under its escaped key', () => {
    expect(
      identityHeaders({ name: 'jane', groups: ['dev', 'system:authenticated'], extra: { 'Scopes.Example/x y': ['a', 'b'] } }, DEFAULT_IDENTITY_HEADERS),
    ).toEqual([
      ['X-Remote-User', 'jane'],
      ['X-Remote-Group', 'dev'],
      ['X-Remote-Group', 'system:authenticated'],
      ['X-Remote-Extra-scopes.example%2Fx%20y', 'a'],
      ['X-Remote-Extra-scopes.example%2Fx%20y', 'b'],
    ]);
  });
});
