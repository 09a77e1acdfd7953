import { ENDPOINT_SLICE_SERVICE_NAME_LABEL, type EndpointSlice } from '@svc/api';
import { canonicalIp, hostPort, ipFamilyOf, type IpFamily } from './ip';
import { servicePortId, type ServiceProtocol } from './service-port';

/** The annotation the EndpointSlice controller stamps with the time of the change behind a write. */
export const LAST_CHANGE_TRIGGER_TIME_ANNOTATION = 'endpoints.kubernetes.io/last-change-trigger-time';

/** One endpoint of one service port, as the proxy uses it (kube-proxy's Endpoint). */
export interface EndpointInfo {
  readonly ip: string;
  readonly port: number;
  /** `ip:port` (`[ip]:port` for IPv6): the endpoint's identity within its service port. */
  readonly key: string;
  readonly ready: boolean;
  readonly serving: boolean;
  readonly terminating: boolean;
  /** On this node (the slice's nodeName is this proxy's node). */
  readonly isLocal: boolean;
  readonly zoneHints: readonly string[];
}

/** The endpoints of each service port (`namespace/name:portName` with its protocol) of one Service. */
export type ServiceEndpoints = Map<string, EndpointInfo[]>;

export function endpointsKey(portId: string, protocol: ServiceProtocol): string {
  return `${portId}/${protocol}`;
}

/** The Service (`namespace/name`) a slice belongs to, or undefined for a slice of no Service. */
export function sliceService(slice: EndpointSlice): string | undefined {
  const name = slice.metadata?.labels?.[ENDPOINT_SLICE_SERVICE_NAME_LABEL];
  return name ? `${slice.metadata?.namespace ?? 'default'}/${name}` : undefined;
}

/**
 * The endpoints of `family` that the slices of one Service give, by service port and protocol. Each
 * endpoint is its first address; one listed in several slices counts once, ready if any says so (a
 * slice being rewritten can hold an old copy). Conditions default as Kubernetes reads them: no ready
 * means ready, no serving means as ready, no terminating means not terminating.
 */
export function endpointsOf(slices: readonly EndpointSlice[], family: IpFamily, nodeName: string): ServiceEndpoints {
  const byPort = new Map<string, Map<string, EndpointInfo>>();
  for (const slice of [...slices].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''))) {
    if (slice.addressType !== family) continue;
    const service = sliceService(slice);
    if (service === undefined) continue;
    const [namespace, name] = service.split('/');
    for (const port of slice.ports ?? []) {
      if (port.port === undefined || port.port === null) continue;
      const key = endpointsKey(servicePortId(namespace, name, port.name ?? ''), port.protocol ?? 'TCP');
      let endpoints = byPort.get(key);
      if (!endpoints) byPort.set(key, (endpoints = new Map<string, EndpointInfo>()));
      for (const endpoint of slice.endpoints ?? []) {
        const address = endpoint.addresses?.[0];
        if (!address || ipFamilyOf(address) !== family) continue;
        const ip = canonicalIp(address);
        const ready = endpoint.conditions?.ready ?? true;
        const info: EndpointInfo = {
          ip,
          port: port.port,
          key: hostPort(ip, port.port),
          ready,
          serving: endpoint.conditions?.serving ?? ready,
          terminating: endpoint.conditions?.terminating ?? false,
          isLocal: nodeName !== '' && endpoint.nodeName === nodeName,
          zoneHints: (endpoint.hints?.forZones ?? []).map((z) => z.name),
        };
        const seen = endpoints.get(info.key);
        if (!seen || (!seen.ready && info.ready)) endpoints.set(info.key, info);
      }
    }
  }
  const out: ServiceEndpoints = new Map();
  for (const [key, endpoints] of byPort)
    out.set(
      key,
      [...endpoints.values()].sort((a, b) => a.key.localeCompare(b.key)),
    );
  return out;
}

/** The latest last-change-trigger-time of the slices, in ms since the epoch; undefined when none says. */
export function lastChangeTriggerTime(slice: EndpointSlice): number | undefined {
  const text = slice.metadata?.annotations?.[LAST_CHANGE_TRIGGER_TIME_ANNOTATION];
  const time = text ? Date.parse(text) : NaN;
  return Number.isNaN(time) ? undefined : time;
}
