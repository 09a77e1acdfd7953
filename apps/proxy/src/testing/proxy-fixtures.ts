import type { EndpointSlice, Service } from '@svc/api';
import { endpointsOf } from '../model/endpoints';
import type { IpFamily } from '../model/ip';
import type { ProxyRuleConfig, ProxyState } from '../model/proxy-state';
import { servicePortsOf, type ServiceProblem } from '../model/service-port';

/** A Service in `ns1` with one TCP port 80 (name `p80`) to 8080, merged with `spec`. */
export function service(name: string, spec: Service['spec'] = {}, status?: Service['status']): Service {
  return {
    metadata: { namespace: 'ns1', name, uid: `uid-${name}` },
    spec: { type: 'ClusterIP', clusterIP: '10.96.0.10', ports: [{ name: 'p80', port: 80, protocol: 'TCP', targetPort: 8080 }], ...spec },
    ...(status ? { status } : {}),
  };
}

export interface EndpointSpec {
  ip: string;
  node?: string;
  ready?: boolean;
  serving?: boolean;
  terminating?: boolean;
  zones?: string[];
}

/** A slice of Service `name` with port `p80` 8080/TCP (or `ports`). */
export function slice(
  name: string,
  endpoints: EndpointSpec[],
  ports: EndpointSlice['ports'] = [{ name: 'p80', port: 8080, protocol: 'TCP' }],
  family: IpFamily = 'IPv4',
): EndpointSlice {
  return {
    metadata: { namespace: 'ns1', name: `${name}-abc`, labels: { 'kubernetes.io/service-name': name } },
    addressType: family,
    ports,
    endpoints: endpoints.map((e) => ({
      addresses: [e.ip],
      nodeName: e.node ?? 'node-a',
      conditions: {
        ...(e.ready !== undefined ? { ready: e.ready } : {}),
        ...(e.serving !== undefined ? { serving: e.serving } : {}),
        ...(e.terminating !== undefined ? { terminating: e.terminating } : {}),
      },
      ...(e.zones ? { hints: { forZones: e.zones.map((z) => ({ name: z })) } } : {}),
    })),
  };
}

export const CONFIG: ProxyRuleConfig = {
  family: 'IPv4',
  masqueradeAll: false,
  masqueradeMark: 0x4000,
  localTraffic: { kind: 'cidr', cidrs: ['10.244.0.0/16'] },
  nodePortAddresses: ['192.168.1.10'],
  nodeIP: '192.168.1.10',
};

/** The state a sync of `services` and `slices` on node-a programs, with the problems found. */
export function stateOf(
  services: Service[],
  slices: EndpointSlice[],
  family: IpFamily = 'IPv4',
  kernel = { sctp: true },
): { state: ProxyState; problems: ServiceProblem[] } {
  const ports = [];
  const problems: ServiceProblem[] = [];
  for (const s of services) {
    const found = servicePortsOf(s, family, kernel);
    ports.push(...found.ports);
    problems.push(...found.problems);
  }
  return { state: { ports, endpoints: endpointsOf(slices, family, 'node-a') }, problems };
}
