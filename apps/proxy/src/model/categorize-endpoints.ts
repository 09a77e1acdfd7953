import type { EndpointInfo } from './endpoints';
import { usesClusterEndpoints, usesLocalEndpoints, type ServicePortInfo } from './service-port';

export interface CategorizedEndpoints {
  /** Endpoints for Cluster traffic policy; empty when the port never uses it. */
  readonly cluster: readonly EndpointInfo[];
  /** Endpoints for Local traffic policy; empty when the port never uses it. */
  readonly local: readonly EndpointInfo[];
  /** Every endpoint this node may send the port's traffic to (the union of both). */
  readonly reachable: readonly EndpointInfo[];
  /** Whether the port has a usable endpoint anywhere in the cluster, reachable from here or not. */
  readonly hasAny: boolean;
}

/**
 * Which endpoints a port's traffic goes to, as Kubernetes' proxies decide it (pkg/proxy/topology.go):
 * ready endpoints, or when there is none, serving endpoints that are terminating (so connections
 * drain to pods that are going away rather than fail), chosen apart for Cluster and Local policy;
 * with topology hints on every ready endpoint and one for this node's zone, only those of its zone.
 */
export function categorizeEndpoints(endpoints: readonly EndpointInfo[], info: ServicePortInfo, zone: string | undefined): CategorizedEndpoints {
  if (endpoints.length === 0) return { cluster: [], local: [], reachable: [], hasAny: false };
  let cluster: EndpointInfo[] = [];
  let hasAny = false;
  let zoned = false;
  if (usesClusterEndpoints(info)) {
    zoned = useZoneHints(endpoints, zone);
    cluster = endpoints.filter((ep) => ep.ready && (!zoned || ep.zoneHints.includes(zone!)));
    if (cluster.length === 0) cluster = endpoints.filter((ep) => ep.serving && ep.terminating);
    hasAny = cluster.length > 0;
  }
  if (!usesLocalEndpoints(info)) return { cluster, local: [], reachable: cluster, hasAny };

  let localReady = false;
  let localTerminating = false;
  for (const ep of endpoints) {
    if (ep.ready) {
      hasAny = true;
      if (ep.isLocal) localReady = true;
    } else if (ep.serving && ep.terminating) {
      hasAny = true;
      if (ep.isLocal) localTerminating = true;
    }
  }
  const local = localReady
    ? endpoints.filter((ep) => ep.isLocal && ep.ready)
    : localTerminating
      ? endpoints.filter((ep) => ep.isLocal && ep.serving && ep.terminating)
      : [];
  if (!usesClusterEndpoints(info)) return { cluster, local, reachable: local, hasAny };
  const terminatingLocal = !localReady && localTerminating;
  if (!zoned && !terminatingLocal) return { cluster, local, reachable: cluster, hasAny };
  const union = new Map<string, EndpointInfo>();
  for (const ep of [...cluster, ...local]) union.set(ep.key, ep);
  return { cluster, local, reachable: [...union.values()].sort((a, b) => a.key.localeCompare(b.key)), hasAny };
}

/** Topology aware routing applies when every ready endpoint has zone hints and one names this zone. */
function useZoneHints(endpoints: readonly EndpointInfo[], zone: string | undefined): boolean {
  let anyReady = false;
  let forZone = false;
  for (const ep of endpoints) {
    if (!ep.ready) continue;
    anyReady = true;
    if (ep.zoneHints.length === 0) return false;
    if (zone && ep.zoneHints.includes(zone)) forZone = true;
  }
  return anyReady && forZone;
}
