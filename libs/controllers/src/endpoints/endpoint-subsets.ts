import type { EndpointAddress, EndpointPort, EndpointSubset, Pod, Service, ServicePort } from '@svc/api';
import { isPodReady, isPodTerminating } from '../common/pod-status';

/** Addresses one Endpoints object holds at most; beyond, it is truncated (and annotated) as Kubernetes does. */
export const MAX_ENDPOINT_ADDRESSES = 1000;

/** A headless service: clusterIP `None`. */
export function isHeadless(service: Service): boolean {
  return service.spec?.clusterIP === 'None';
}

/**
 * Kubernetes' ShouldPodBeInEndpoints: a pod with an IP that has not finished. A pod being deleted is
 * left out, unless the service publishes not-ready addresses (then it stays until it is gone).
 */
export function shouldPodBeInEndpoints(pod: Pod, includeTerminating: boolean): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  if (!pod.status?.podIP && !(pod.status?.podIPs ?? []).length) return false;
  return includeTerminating || !isPodTerminating(pod);
}

function isIPv6(ip: string): boolean {
  return ip.includes(':');
}

/**
 * The pod's IP of the service's family (its first ipFamily; else that of its clusterIP; a headless
 * service takes the pod's primary IP's family), as Kubernetes picks it; undefined when it has none.
 */
export function podIPForService(service: Service, pod: Pod): string | undefined {
  const ips = (pod.status?.podIPs ?? []).map((p) => p.ip).filter(Boolean);
  if (ips.length === 0 && pod.status?.podIP) ips.push(pod.status.podIP);
  if (ips.length === 0) return undefined;
  const clusterIP = service.spec?.clusterIP;
  const family = service.spec?.ipFamilies?.[0];
  const v6 = family !== undefined ? family === 'IPv6' : clusterIP && clusterIP !== 'None' ? isIPv6(clusterIP) : isIPv6(pod.status?.podIP || ips[0]);
  return ips.find((ip) => isIPv6(ip) === v6);
}

/** Kubernetes' ShouldSetHostname: the pod names a hostname and the service as its subdomain. */
export function shouldSetHostname(pod: Pod, service: Service): boolean {
  return Boolean(pod.spec?.hostname) && pod.spec?.subdomain === service.metadata?.name && pod.metadata?.namespace === service.metadata?.namespace;
}

/**
 * Kubernetes' FindPort: a numeric targetPort as is; a named one resolved against the pod's
 * containers' ports of the same name and protocol (restartable init containers too). Undefined
 * when the pod has no such port.
 */
export function findPort(pod: Pod, servicePort: ServicePort): number | undefined {
  const target = servicePort.targetPort ?? servicePort.port;
  if (typeof target === 'number') return target;
  const protocol = servicePort.protocol ?? 'TCP';
  const sidecars = (pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always');
  for (const container of [...(pod.spec?.containers ?? []), ...sidecars]) {
    for (const port of container.ports ?? []) {
      if (port.name === target && (port.protocol ?? 'TCP') === protocol) return port.containerPort;
    }
  }
  return undefined;
}

function podAddress(service: Service, pod: Pod): EndpointAddress | undefined {
  const ip = podIPForService(service, pod);
  if (!ip) return undefined;
  const address: EndpointAddress = { ip };
  if (shouldSetHostname(pod, service)) address.hostname = pod.spec.hostname;
  if (pod.spec?.nodeName) address.nodeName = pod.spec.nodeName;
  address.targetRef = { kind: 'Pod', namespace: pod.metadata?.namespace, name: pod.metadata?.name, uid: pod.metadata?.uid };
  return address;
}

function endpointPort(servicePort: ServicePort, port: number): EndpointPort {
  const out: EndpointPort = { port, protocol: servicePort.protocol ?? 'TCP' };
  if (servicePort.name) out.name = servicePort.name;
  if (servicePort.appProtocol) out.appProtocol = servicePort.appProtocol;
  return out;
}

/**
 * The subsets of a selecting service's Endpoints, from the pods its selector picks: each pod that
 * belongs (see {@link shouldPodBeInEndpoints}) contributes its address for every service port it
 * resolves, ready or not ready (all ready with `publishNotReadyAddresses`); a headless service
 * without ports gets addresses without ports. Then repacked: ports served by the same addresses share a subset.
 */
export function desiredSubsets(service: Service, pods: readonly Pod[]): EndpointSubset[] {
  const publishNotReady = service.spec?.publishNotReadyAddresses === true;
  const ports = service.spec?.ports ?? [];
  const subsets: EndpointSubset[] = [];
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, publishNotReady)) continue;
    const address = podAddress(service, pod);
    if (!address) continue;
    const ready = publishNotReady || isPodReady(pod);
    const add = (port: EndpointPort | undefined) =>
      subsets.push({ ...(ready ? { addresses: [address] } : { notReadyAddresses: [address] }), ...(port ? { ports: [port] } : {}) });
    if (ports.length === 0) {
      if (isHeadless(service)) add(undefined);
      continue;
    }
    for (const servicePort of ports) {
      const port = findPort(pod, servicePort);
      if (port !== undefined) add(endpointPort(servicePort, port));
    }
  }
  return repackSubsets(subsets);
}

function addressKey(address: EndpointAddress): string {
  return `${address.ip}|${address.targetRef?.uid ?? ''}`;
}

function portKey(port: EndpointPort): string {
  return JSON.stringify([port.name ?? '', port.port, port.protocol ?? 'TCP', port.appProtocol ?? '']);
}

function compareAddresses(a: EndpointAddress, b: EndpointAddress): number {
  return a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : (a.targetRef?.uid ?? '').localeCompare(b.targetRef?.uid ?? '');
}

function comparePorts(a: EndpointPort, b: EndpointPort): number {
  const ak = portKey(a);
  const bk = portKey(b);
  return ak < bk ? -1 : ak > bk ? 1 : 0;
}

/**
 * Kubernetes' RepackSubsets: the same (address, port) pairs regrouped so that the ports served by
 * exactly the same addresses (with the same readiness) share one subset. An address listed both
 * ready and not ready on a port is not ready there. Addresses, ports and subsets come out sorted,
 * so equal content packs equal.
 */
export function repackSubsets(subsets: readonly EndpointSubset[]): EndpointSubset[] {
  const addresses = new Map<string, EndpointAddress>();
  // Per port (or no port at all): the addresses offering it, and whether each is ready there.
  const byPort = new Map<string, { port: EndpointPort | undefined; ready: Map<string, boolean> }>();
  const note = (address: EndpointAddress, port: EndpointPort | undefined, ready: boolean) => {
    const key = addressKey(address);
    if (!addresses.has(key)) addresses.set(key, address);
    const pk = port ? portKey(port) : '';
    let entry = byPort.get(pk);
    if (!entry) byPort.set(pk, (entry = { port, ready: new Map() }));
    if (entry.ready.get(key) !== false) entry.ready.set(key, ready);
  };
  for (const subset of subsets) {
    const ports = subset.ports && subset.ports.length > 0 ? subset.ports : [undefined];
    for (const port of ports) {
      for (const a of subset.addresses ?? []) note(a, port, true);
      for (const a of subset.notReadyAddresses ?? []) note(a, port, false);
    }
  }
  // Ports whose address sets (with readiness) are identical land in one subset.
  const groups = new Map<string, { ready: Map<string, boolean>; ports: EndpointPort[] }>();
  for (const { port, ready } of byPort.values()) {
    const setKey = [...ready]
      .map(([k, r]) => `${k}|${r ? 1 : 0}`)
      .sort()
      .join(',');
    let group = groups.get(setKey);
    if (!group) groups.set(setKey, (group = { ready, ports: [] }));
    if (port) group.ports.push(port);
  }
  const packed: EndpointSubset[] = [];
  for (const { ready, ports } of groups.values()) {
    const readyAddresses: EndpointAddress[] = [];
    const notReady: EndpointAddress[] = [];
    for (const [key, isReady] of ready) (isReady ? readyAddresses : notReady).push(addresses.get(key)!);
    const subset: EndpointSubset = {};
    if (readyAddresses.length > 0) subset.addresses = readyAddresses.sort(compareAddresses);
    if (notReady.length > 0) subset.notReadyAddresses = notReady.sort(compareAddresses);
    if (ports.length > 0) subset.ports = ports.sort(comparePorts);
    packed.push(subset);
  }
  return sortSubsets(packed);
}

/** Subsets in a stable order (each subset's own lists sorted), for storage and comparison. */
function sortSubsets(subsets: EndpointSubset[]): EndpointSubset[] {
  const keyed = subsets.map((s) => ({ s, key: JSON.stringify(canonicalSubset(s)) }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return keyed.map((k) => k.s);
}

function canonicalAddress(a: EndpointAddress): unknown[] {
  const ref = a.targetRef;
  // The pod's resourceVersion is ignored, as Kubernetes ignores it, so a pod write that changes nothing here changes nothing.
  return [
    a.ip,
    a.hostname ?? '',
    a.nodeName ?? '',
    ref ? [ref.kind ?? '', ref.namespace ?? '', ref.name ?? '', ref.uid ?? '', ref.apiVersion ?? '', ref.fieldPath ?? ''] : null,
  ];
}

function canonicalSubset(s: EndpointSubset): unknown[] {
  return [
    [...(s.addresses ?? [])].sort(compareAddresses).map(canonicalAddress),
    [...(s.notReadyAddresses ?? [])].sort(compareAddresses).map(canonicalAddress),
    [...(s.ports ?? [])].sort(comparePorts).map(portKey),
  ];
}

/** Semantic equality of two subset lists: order, absent versus empty lists and pods' resourceVersions do not count. */
export function subsetsEqual(a: readonly EndpointSubset[] | undefined, b: readonly EndpointSubset[] | undefined): boolean {
  const canon = (list: readonly EndpointSubset[] | undefined) =>
    (list ?? [])
      .map((s) => JSON.stringify(canonicalSubset(s)))
      .filter((k) => k !== '[[],[],[]]')
      .sort();
  const ca = canon(a);
  const cb = canon(b);
  return ca.length === cb.length && ca.every((k, i) => k === cb[i]);
}

/** Addresses, ready and not, in all subsets. */
export function addressCount(subsets: readonly EndpointSubset[] | undefined): number {
  return (subsets ?? []).reduce((n, s) => n + (s.addresses?.length ?? 0) + (s.notReadyAddresses?.length ?? 0), 0);
}

/**
 * Kubernetes' truncateEndpoints: above `max` addresses, not-ready addresses go first; when the
 * ready ones alone are too many, all not-ready go and the ready ones are cut; each subset keeps a
 * share proportional to its size (rounded up, the last ones get what is left).
 */
export function truncateSubsets(subsets: readonly EndpointSubset[], max = MAX_ENDPOINT_ADDRESSES): { subsets: EndpointSubset[]; truncated: boolean } {
  const totalReady = subsets.reduce((n, s) => n + (s.addresses?.length ?? 0), 0);
  const totalNotReady = subsets.reduce((n, s) => n + (s.notReadyAddresses?.length ?? 0), 0);
  if (totalReady + totalNotReady <= max) return { subsets: [...subsets], truncated: false };
  const truncateReady = totalReady > max;
  const budget = truncateReady ? max : max - totalReady;
  const total = truncateReady ? totalReady : totalNotReady;
  let left = budget;
  const out = subsets.map((subset) => {
    const inSubset = truncateReady ? (subset.addresses?.length ?? 0) : (subset.notReadyAddresses?.length ?? 0);
    const share = Math.min(left, Math.ceil((inSubset / total) * budget));
    const next: EndpointSubset = { ...subset };
    if (truncateReady) {
      next.addresses = (subset.addresses ?? []).slice(0, share);
      delete next.notReadyAddresses;
      left -= next.addresses.length;
    } else {
      next.notReadyAddresses = (subset.notReadyAddresses ?? []).slice(0, share);
      left -= next.notReadyAddresses.length;
    }
    if (next.addresses?.length === 0) delete next.addresses;
    if (next.notReadyAddresses?.length === 0) delete next.notReadyAddresses;
    return next;
  });
  return { subsets: out.filter((s) => (s.addresses?.length ?? 0) + (s.notReadyAddresses?.length ?? 0) > 0), truncated: true };
}
