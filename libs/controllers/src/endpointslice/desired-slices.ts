import { createHash } from 'node:crypto';
import { jsonEqual } from '@svc/machinery';
import type { AddressType, EndpointAddress, EndpointSlice, EndpointSliceEndpoint, EndpointSlicePort, Endpoints } from '@svc/api';

/** A slice to write: its name, address type, endpoints and ports (metadata is the reconciler's). */
export interface DesiredSlice {
  name: string;
  addressType: AddressType;
  endpoints: EndpointSliceEndpoint[];
  ports: EndpointSlicePort[];
}

function addressTypeOf(ip: string): AddressType {
  return ip.includes(':') ? 'IPv6' : 'IPv4';
}

function endpointOf(address: EndpointAddress, ready: boolean): EndpointSliceEndpoint {
  // The endpointslice controller's conditions for a pod that is not terminating: serving as ready.
  const endpoint: EndpointSliceEndpoint = { addresses: [address.ip], conditions: { ready, serving: ready, terminating: false } };
  if (address.hostname) endpoint.hostname = address.hostname;
  if (address.nodeName) endpoint.nodeName = address.nodeName;
  if (address.targetRef) endpoint.targetRef = address.targetRef;
  return endpoint;
}

/** A short name suffix that stays the same for the same family, ports and chunk, however the subsets are ordered. */
function suffixOf(addressType: AddressType, ports: readonly EndpointSlicePort[], chunk: number): string {
  const key = JSON.stringify([addressType, ports.map((p) => [p.name ?? '', p.protocol ?? 'TCP', p.port ?? 0]).sort(), chunk]);
  return createHash('sha256').update(key).digest('hex').slice(0, 5);
}

/**
 * The EndpointSlices of a Service from its Endpoints: one group per address family and port set
 * (an Endpoints subset), cut into slices of at most `maxPerSlice` endpoints. Ready addresses are
 * ready and serving; not-ready ones neither.
 */
export function desiredSlices(serviceName: string, endpoints: Endpoints | undefined, maxPerSlice: number): DesiredSlice[] {
  const groups = new Map<string, { addressType: AddressType; ports: EndpointSlicePort[]; endpoints: EndpointSliceEndpoint[] }>();
  for (const subset of endpoints?.subsets ?? []) {
    const ports: EndpointSlicePort[] = (subset.ports ?? []).map((p) => ({
      name: p.name ?? '',
      port: p.port,
      protocol: p.protocol ?? 'TCP',
      ...(p.appProtocol !== undefined ? { appProtocol: p.appProtocol } : {}),
    }));
    const add = (address: EndpointAddress, ready: boolean) => {
      const addressType = addressTypeOf(address.ip);
      const key = `${addressType}/${JSON.stringify(ports)}`;
      let group = groups.get(key);
      if (group === undefined) groups.set(key, (group = { addressType, ports, endpoints: [] }));
      group.endpoints.push(endpointOf(address, ready));
    };
    for (const address of subset.addresses ?? []) add(address, true);
    for (const address of subset.notReadyAddresses ?? []) add(address, false);
  }
  const slices: DesiredSlice[] = [];
  for (const group of groups.values()) {
    for (let start = 0, chunk = 0; start < group.endpoints.length; start += maxPerSlice, chunk++) {
      const name = `${serviceName}-${suffixOf(group.addressType, group.ports, chunk)}`;
      slices.push({ name, addressType: group.addressType, ports: group.ports, endpoints: group.endpoints.slice(start, start + maxPerSlice) });
    }
  }
  // A Service with no endpoints still has one (empty) slice, as Kubernetes keeps a placeholder.
  if (slices.length === 0) slices.push({ name: `${serviceName}-${suffixOf('IPv4', [], 0)}`, addressType: 'IPv4', endpoints: [], ports: [] });
  return slices;
}

/** Whether a stored slice already holds what `desired` asks. */
export function sliceMatches(slice: EndpointSlice, desired: DesiredSlice): boolean {
  return slice.addressType === desired.addressType && jsonEqual(slice.endpoints ?? [], desired.endpoints) && jsonEqual(slice.ports ?? [], desired.ports);
}
