import type { ApiObject, Endpoints, Service } from '@svc/api';

/** Where a webhook's service reference is reached: an address and port, and the name its certificate carries. */
export interface ResolvedService {
  host: string;
  port: number;
  /** `<name>.<namespace>.svc`, the name the webhook's serving certificate is checked against. */
  serverName: string;
}

/**
 * Resolves `namespace/name:port` to an endpoint, avoiding those in `exclude` (`host:port`s a call
 * could not connect to) while others are ready; throws an Error saying why it cannot.
 */
export type ServiceResolver = (namespace: string, name: string, port: number, exclude?: ReadonlySet<string>) => Promise<ResolvedService>;

/** The key a resolved endpoint is excluded by. */
export function endpointKey(resolved: Pick<ResolvedService, 'host' | 'port'>): string {
  return `${resolved.host}:${resolved.port}`;
}

/** Reads a Service or its Endpoints by namespace and name, as they are now; undefined when absent. */
export type ServiceObjectLookup = (resource: 'services' | 'endpoints', namespace: string, name: string) => Promise<ApiObject | undefined>;

/**
 * Kubernetes sends a webhook's service reference to the service's cluster IP; cluster IPs are not
 * routed here, so the reference goes to the first ready endpoint of the service's port instead (as
 * Kubernetes' `--enable-aggregator-routing` does), with TLS still checked against the service's name.
 */
export function endpointsServiceResolver(lookup: ServiceObjectLookup): ServiceResolver {
  return async (namespace, name, port, exclude) => {
    const service = (await lookup('services', namespace, name)) as Service | undefined;
    if (service === undefined) throw new Error(`service "${namespace}/${name}" not found`);
    const servicePort = (service.spec?.ports ?? []).find((p) => p.port === port);
    if (servicePort === undefined) throw new Error(`service "${namespace}/${name}" has no port ${port}`);
    const endpoints = (await lookup('endpoints', namespace, name)) as Endpoints | undefined;
    const target = servicePort.targetPort ?? port;
    const ready: ResolvedService[] = [];
    for (const subset of endpoints?.subsets ?? []) {
      const endpointPort = (subset.ports ?? []).find((p) =>
        typeof target === 'number' ? p.port === target || (servicePort.name !== undefined && p.name === servicePort.name) : p.name === target,
      );
      if (endpointPort === undefined) continue;
      for (const address of subset.addresses ?? []) ready.push({ host: address.ip, port: endpointPort.port, serverName: `${name}.${namespace}.svc` });
    }
    if (ready.length === 0) throw new Error(`service "${namespace}/${name}" has no ready endpoint for port ${port}`);
    // A random ready endpoint per call, as Kubernetes' endpoint routing picks one per connection.
    const untried = ready.filter((r) => !exclude?.has(endpointKey(r)));
    const pool = untried.length > 0 ? untried : ready;
    return pool[Math.floor(Math.random() * pool.length)];
  };
}
