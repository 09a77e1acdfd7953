import type { Service } from '@svc/api';
import { canonicalCidr, canonicalIp, cidrFamilyOf, ipFamilyOf, type IpFamily } from './ip';

export type ServiceProtocol = 'TCP' | 'UDP' | 'SCTP';
const PROTOCOLS: ReadonlySet<string> = new Set(['TCP', 'UDP', 'SCTP']);

/** Kubernetes' default ClientIP affinity timeout: three hours. */
export const DEFAULT_AFFINITY_TIMEOUT_SECONDS = 10_800;

/** The labels that keep a Service (and its slices) from this proxy, as kube-proxy's informers select. */
export const SERVICE_PROXY_NAME_LABEL = 'service.kubernetes.io/service-proxy-name';
export const HEADLESS_LABEL = 'service.kubernetes.io/headless';

/**
 * One port of one Service in one IP family, as the proxy programs it (kube-proxy's ServicePort):
 * everything the rules of that port depend on, so two equal infos give equal rules.
 */
export interface ServicePortInfo {
  /** `namespace/name:portName`; the port name may be empty. */
  readonly id: string;
  readonly namespace: string;
  readonly name: string;
  readonly portName: string;
  readonly protocol: ServiceProtocol;
  readonly port: number;
  readonly clusterIP: string;
  /** 0 when the port has none. */
  readonly nodePort: number;
  readonly externalIPs: readonly string[];
  /** status.loadBalancer.ingress IPs of ipMode VIP (or unset). */
  readonly loadBalancerVIPs: readonly string[];
  readonly loadBalancerSourceRanges: readonly string[];
  /** Set for `sessionAffinity: ClientIP`. */
  readonly affinityTimeoutSeconds?: number;
  readonly internalPolicyLocal: boolean;
  /** externalTrafficPolicy Local on a port reachable from outside (kube-proxy's ExternalPolicyLocal). */
  readonly externalPolicyLocal: boolean;
  readonly healthCheckNodePort: number;
}

/** Something in a Service this proxy cannot program, for an Event on the Service. */
export interface ServiceProblem {
  readonly reason: string;
  readonly message: string;
}

/** What the proxy can do, as the host tells it (SCTP needs conntrack support in the kernel). */
export interface KernelSupport {
  readonly sctp: boolean;
}

export function servicePortId(namespace: string, name: string, portName: string): string {
  return `${namespace}/${name}:${portName}`;
}

export function externallyAccessible(info: ServicePortInfo): boolean {
  return info.nodePort !== 0 || info.externalIPs.length > 0 || info.loadBalancerVIPs.length > 0;
}

/** Whether the port's traffic ever uses endpoints on any node (kube-proxy's UsesClusterEndpoints). */
export function usesClusterEndpoints(info: ServicePortInfo): boolean {
  return !info.internalPolicyLocal || (externallyAccessible(info) && !info.externalPolicyLocal);
}

/** Whether the port's traffic ever uses only this node's endpoints (kube-proxy's UsesLocalEndpoints). */
export function usesLocalEndpoints(info: ServicePortInfo): boolean {
  return info.internalPolicyLocal || info.externalPolicyLocal;
}

/**
 * Whether the proxy has nothing to program for this Service: no cluster IP (headless, or not yet
 * allocated), ExternalName, or one the proxy is told to leave alone.
 */
export function skipService(service: Service): boolean {
  const spec = service.spec ?? {};
  if (spec.type === 'ExternalName') return true;
  if (!spec.clusterIP || spec.clusterIP === 'None') return true;
  const labels = service.metadata?.labels ?? {};
  return SERVICE_PROXY_NAME_LABEL in labels || HEADLESS_LABEL in labels;
}

/**
 * The ports of a Service this proxy programs in `family`, and what it cannot program (reported once
 * per Service, whichever family finds it). A port of an unknown protocol, or SCTP on a kernel without
 * it, is left out; an address or range that does not parse is left out of the port.
 */
export function servicePortsOf(service: Service, family: IpFamily, kernel: KernelSupport): { ports: ServicePortInfo[]; problems: ServiceProblem[] } {
  const problems: ServiceProblem[] = [];
  if (skipService(service)) return { ports: [], problems };
  const spec = service.spec ?? {};
  const namespace = service.metadata?.namespace ?? 'default';
  const name = service.metadata?.name ?? '';
  const clusterIPs = spec.clusterIPs?.length ? spec.clusterIPs : [spec.clusterIP!];
  const clusterIP = clusterIPs.find((ip) => ipFamilyOf(ip) === family);
  for (const ip of clusterIPs) {
    if (ipFamilyOf(ip) === undefined) problems.push({ reason: 'InvalidClusterIP', message: `cluster IP ${JSON.stringify(ip)} is not an IP address` });
  }

  const ipsOf = (values: readonly string[] | undefined, what: string): string[] => {
    const out: string[] = [];
    for (const value of values ?? []) {
      const f = ipFamilyOf(value);
      if (f === undefined) problems.push({ reason: 'InvalidIP', message: `${what} ${JSON.stringify(value)} is not an IP address; it is ignored` });
      else if (f === family) out.push(canonicalIp(value));
    }
    return out;
  };
  const externalIPs = ipsOf(spec.externalIPs, 'external IP');
  const ingress = service.status?.loadBalancer?.ingress ?? [];
  // An ingress of ipMode Proxy is reached through the load balancer, not by its IP.
  const loadBalancerVIPs =
    spec.type === 'LoadBalancer'
      ? ipsOf(
          ingress.filter((i) => i.ip && i.ipMode !== 'Proxy').map((i) => i.ip!),
          'load balancer IP',
        )
      : [];
  const loadBalancerSourceRanges: string[] = [];
  if (spec.type === 'LoadBalancer') {
    for (const range of spec.loadBalancerSourceRanges ?? []) {
      const trimmed = range.trim();
      const f = cidrFamilyOf(trimmed);
      if (f === undefined)
        problems.push({ reason: 'InvalidSourceRange', message: `load balancer source range ${JSON.stringify(range)} is not a CIDR; it is ignored` });
      else if (f === family) loadBalancerSourceRanges.push(canonicalCidr(trimmed));
    }
  }
  const affinityTimeoutSeconds =
    spec.sessionAffinity === 'ClientIP' ? (spec.sessionAffinityConfig?.clientIP?.timeoutSeconds ?? DEFAULT_AFFINITY_TIMEOUT_SECONDS) : undefined;
  const withNodePorts = spec.type === 'NodePort' || spec.type === 'LoadBalancer';

  const ports: ServicePortInfo[] = [];
  for (const port of spec.ports ?? []) {
    const protocol = (port.protocol ?? 'TCP') as string;
    const portName = port.name ?? '';
    const label = portName ? `port ${JSON.stringify(portName)} (${port.port}/${protocol})` : `port ${port.port}/${protocol}`;
    if (!PROTOCOLS.has(protocol)) {
      problems.push({
        reason: 'UnsupportedProtocol',
        message: `${label}: protocol ${JSON.stringify(protocol)} is not TCP, UDP or SCTP; the port is not programmed`,
      });
      continue;
    }
    if (protocol === 'SCTP' && !kernel.sctp) {
      problems.push({ reason: 'SCTPNotSupported', message: `${label}: this node's kernel has no SCTP connection tracking; the port is not programmed` });
      continue;
    }
    if (!Number.isInteger(port.port) || port.port < 1 || port.port > 65535) {
      problems.push({ reason: 'InvalidPort', message: `${label}: the port is not in 1-65535; it is not programmed` });
      continue;
    }
    const nodePort = withNodePorts && port.nodePort ? port.nodePort : 0;
    if (nodePort !== 0 && (!Number.isInteger(nodePort) || nodePort < 1 || nodePort > 65535)) {
      problems.push({ reason: 'InvalidPort', message: `${label}: node port ${nodePort} is not in 1-65535; it is not programmed` });
      continue;
    }
    if (clusterIP === undefined) continue;
    const info: ServicePortInfo = {
      id: servicePortId(namespace, name, portName),
      namespace,
      name,
      portName,
      protocol: protocol as ServiceProtocol,
      port: port.port,
      clusterIP: canonicalIp(clusterIP),
      nodePort,
      externalIPs,
      loadBalancerVIPs,
      loadBalancerSourceRanges,
      ...(affinityTimeoutSeconds !== undefined ? { affinityTimeoutSeconds } : {}),
      internalPolicyLocal: spec.internalTrafficPolicy === 'Local',
      externalPolicyLocal: false,
      healthCheckNodePort: spec.healthCheckNodePort ?? 0,
    };
    ports.push({ ...info, externalPolicyLocal: externallyAccessible(info) && spec.externalTrafficPolicy === 'Local' });
  }
  return { ports, problems };
}
