import { categorizeEndpoints, type CategorizedEndpoints } from './categorize-endpoints';
import { endpointsKey, type EndpointInfo } from './endpoints';
import type { IpFamily } from './ip';
import type { ServicePortInfo, ServiceProblem } from './service-port';

/** How pod traffic is told from other traffic (kube-proxy's LocalTrafficDetector), as rule fragments. */
export type LocalTraffic =
  | { readonly kind: 'cidr'; readonly cidrs: readonly string[] }
  | { readonly kind: 'interface'; readonly name: string }
  | { readonly kind: 'interface-prefix'; readonly prefix: string }
  | { readonly kind: 'none' };

/** The settings of one family's rules that do not come from Services. */
export interface ProxyRuleConfig {
  readonly family: IpFamily;
  readonly masqueradeAll: boolean;
  /** The packet mark bit that asks for masquerading, as a value (1 << bit). */
  readonly masqueradeMark: number;
  readonly localTraffic: LocalTraffic;
  /** The node addresses NodePorts answer on; `all` for every local address but loopback. */
  readonly nodePortAddresses: 'all' | readonly string[];
  /** The node's primary IP in this family, when known (load balancer source ranges let it in). */
  readonly nodeIP?: string;
}

/** Everything one sync programs for one family. */
export interface ProxyState {
  readonly ports: readonly ServicePortInfo[];
  /** By `endpointsKey(port id, protocol)`. */
  readonly endpoints: ReadonlyMap<string, readonly EndpointInfo[]>;
  /** This node's topology zone, for topology aware routing. */
  readonly zone?: string;
}

/** One service port with the endpoints its traffic goes to. */
export interface PlannedPort {
  readonly info: ServicePortInfo;
  readonly endpoints: CategorizedEndpoints;
}

/** Counts for `kubeproxy_sync_proxy_rules_no_local_endpoints_total`. */
export interface NoLocalEndpoints {
  internal: number;
  external: number;
}

/** What a sync found wrong in one Service, by `namespace/name`. */
export type ProblemsByService = Map<string, ServiceProblem[]>;

/** The ports in a stable order, each with its categorized endpoints. */
export function planPorts(state: ProxyState): PlannedPort[] {
  return [...state.ports]
    .sort((a, b) => a.id.localeCompare(b.id) || a.protocol.localeCompare(b.protocol))
    .map((info) => ({ info, endpoints: categorizeEndpoints(state.endpoints.get(endpointsKey(info.id, info.protocol)) ?? [], info, state.zone) }));
}

/**
 * Claims of destinations (`ip . proto . port`, or `proto . nodePort`) by service ports: the first
 * claim (in port order) wins, and a later one is a problem of its Service, never a failed sync.
 */
export class DestinationClaims {
  private readonly owners = new Map<string, string>();

  constructor(private readonly problems: ProblemsByService) {}

  /** True when `info` may program `destination`. */
  claim(destination: string, info: ServicePortInfo, what: string): boolean {
    const owner = this.owners.get(destination);
    if (owner === undefined) {
      this.owners.set(destination, info.id);
      return true;
    }
    if (owner === info.id) return true;
    const service = `${info.namespace}/${info.name}`;
    const list = this.problems.get(service) ?? [];
    list.push({ reason: 'PortConflict', message: `${what} is already served for ${owner}; it is not programmed for ${info.id}` });
    this.problems.set(service, list);
    return false;
  }
}
