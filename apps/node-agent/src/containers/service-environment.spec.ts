import type { Pod, Service } from '@svc/api';
import type { ConfigObjects } from '../objects/config-objects';
import { containerEnvironment } from './environment';
import { serviceEnvironment } from './service-environment';

function service(namespace: string, name: string, clusterIP: string, ports: NonNullable<Service['spec']>['ports']): Service {
  return { metadata: { namespace, name }, spec: { clusterIP, ports } };
}

const services: Service[] = [
  service('default', 'kubernetes', '10.96.0.1', [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }]),
  service('apps', 'web-front', '10.96.0.20', [
    { port: 80, protocol: 'TCP' },
    { name: 'dns-udp', port: 53, protocol: 'UDP' },
  ]),
  service('apps', 'headless', 'None', [{ port: 80 }]),
  service('other', 'elsewhere', '10.96.0.30', [{ port: 8080 }]),
];

function pod(namespace: string, enableServiceLinks?: boolean): Pod {
  return { metadata: { namespace, name: 'p', uid: 'u' }, spec: { enableServiceLinks, containers: [{ name: 'main', image: 'busybox' }] } };
}

describe('serviceEnvironment', () => {
  it("gives the kubernetes Service's variables and those of every Service of the pod's namespace with a ClusterIP, as the kubelet writes them", () => {
    expect(Object.fromEntries(serviceEnvironment(pod('apps'), services))).toEqual({
      KUBERNETES_SERVICE_HOST: '10.96.0.1',
      KUBERNETES_SERVICE_PORT: '443',
      KUBERNETES_SERVICE_PORT_HTTPS: '443',
      KUBERNETES_PORT: 'tcp://10.96.0.1:443',
      KUBERNETES_PORT_443_TCP: 'tcp://10.96.0.1:443',
      KUBERNETES_PORT_443_TCP_PROTO: 'tcp',
      KUBERNETES_PORT_443_TCP_PORT: '443',
      KUBERNETES_PORT_443_TCP_ADDR: '10.96.0.1',
      WEB_FRONT_SERVICE_HOST: '10.96.0.20',
      WEB_FRONT_SERVICE_PORT: '80',
      WEB_FRONT_SERVICE_PORT_DNS_UDP: '53',
      WEB_FRONT_PORT: 'tcp://10.96.0.20:80',
      WEB_FRONT_PORT_80_TCP: 'tcp://10.96.0.20:80',
      WEB_FRONT_PORT_80_TCP_PROTO: 'tcp',
      WEB_FRONT_PORT_80_TCP_PORT: '80',
      WEB_FRONT_PORT_80_TCP_ADDR: '10.96.0.20',
      WEB_FRONT_PORT_53_UDP: 'udp://10.96.0.20:53',
      WEB_FRONT_PORT_53_UDP_PROTO: 'udp',
      WEB_FRONT_PORT_53_UDP_PORT: '53',
      WEB_FRONT_PORT_53_UDP_ADDR: '10.96.0.20',
    });
  });

  it("with enableServiceLinks false keeps only the kubernetes Service's", () => {
    expect([...serviceEnvironment(pod('apps', false), services).keys()].every((name) => name.startsWith('KUBERNETES_'))).toBe(true);
  });

  it('brackets an IPv6 ClusterIP in the link variables', () => {
    const env = serviceEnvironment(pod('default'), [service('default', 'kubernetes', 'fd00::1', [{ port: 443 }])]);
    expect(env.get('KUBERNETES_PORT')).toBe('tcp://[fd00::1]:443');
    expect(env.get('KUBERNETES_SERVICE_HOST')).toBe('fd00::1');
  });

  it("lets the container's own variables win and its $(NAME) references see the Services' variables", async () => {
    const withEnv = pod('default');
    const container = {
      name: 'main',
      image: 'busybox',
      env: [
        { name: 'KUBERNETES_SERVICE_PORT', value: '8443' },
        { name: 'API', value: 'https://$(KUBERNETES_SERVICE_HOST)' },
      ],
    };
    const facts = { nodeName: 'n', hostIPs: [], podIPs: [], allocatableMilliCpu: 0, allocatableMemory: 0 };
    const env = await containerEnvironment(withEnv, container, {} as ConfigObjects, facts, serviceEnvironment(withEnv, services));
    const map = Object.fromEntries(env.map(([k, v]) => [k, v.toString()]));
    expect(map.KUBERNETES_SERVICE_PORT).toBe('8443');
    expect(map.API).toBe('https://10.96.0.1');
    expect(map.KUBERNETES_SERVICE_HOST).toBe('10.96.0.1');
  });
});
