import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import type { APIService, APIServiceServiceReference, Endpoints, Service } from '@svc/api';
import { API_SERVICE_DEFAULT_PORT } from '@svc/api';
import type { UserInfo } from '@svc/machinery';

/** Where an aggregated group version's requests go: an address, and the name its serving certificate is checked against. */
export interface ResolvedBackend {
  host: string;
  port: number;
  /** `<service>.<namespace>.svc`, as kube-aggregator checks the server's certificate. */
  serverName: string;
}

/** Reads a Service or its Endpoints as the server knows them now; undefined when absent. */
export interface ServiceObjects {
  service(namespace: string, name: string): Service | undefined;
  endpoints(namespace: string, name: string): Endpoints | undefined;
}

/**
 * `--enable-aggregator-routing`: true sends requests to an endpoint of the service (Kubernetes'
 * ResolveEndpoint), false to its cluster IP (ResolveCluster), which only a host that routes cluster
 * IPs (one running the service proxy) reaches.
 */
export type AggregatorRouting = 'endpoints' | 'cluster-ip';

export function servicePortOf(ref: APIServiceServiceReference): number {
  return ref.port ?? API_SERVICE_DEFAULT_PORT;
}

function findServicePort(service: Service, port: number): { name?: string; port: number } {
  const found = (service.spec?.ports ?? []).find((p) => p.port === port);
  if (found === undefined) throw new Error(`no service port ${port} found for service "${service.metadata?.name ?? ''}"`);
  return found;
}

/** Kubernetes' proxy.ResolveEndpoint and ResolveCluster, for the service an APIService names; throws saying why not. */
export function resolveBackend(objects: ServiceObjects, ref: APIServiceServiceReference, routing: AggregatorRouting): ResolvedBackend {
  const namespace = ref.namespace ?? '';
  const name = ref.name ?? '';
  const port = servicePortOf(ref);
  const serverName = `${name}.${namespace}.svc`;
  const service = objects.service(namespace, name);
  if (service === undefined) throw new Error(`service "${name}" not found`);
  const type = service.spec?.type ?? 'ClusterIP';
  if (type === 'ExternalName') return { host: service.spec?.externalName ?? '', port, serverName };
  if (type !== 'ClusterIP' && type !== 'NodePort' && type !== 'LoadBalancer') throw new Error(`unsupported service type "${String(type)}"`);
  const servicePort = findServicePort(service, port);
  if (routing === 'cluster-ip') {
    const clusterIP = service.spec?.clusterIP ?? '';
    if (clusterIP === 'None' || clusterIP === '') throw new Error('cannot route to service with ClusterIP "None"');
    return { host: clusterIP, port: servicePort.port, serverName };
  }
  const subsets = objects.endpoints(namespace, name)?.subsets ?? [];
  if (subsets.length === 0) throw new Error(`no endpoints available for service "${name}"`);
  // A random subset and address, as Kubernetes picks one per request.
  const seed = Math.floor(Math.random() * subsets.length);
  for (let i = 0; i < subsets.length; i++) {
    const subset = subsets[(seed + i) % subsets.length];
    const addresses = subset.addresses ?? [];
    if (addresses.length === 0) continue;
    const endpointPort = (subset.ports ?? []).find((p) => (p.name ?? '') === (servicePort.name ?? ''));
    if (endpointPort === undefined) continue;
    return { host: addresses[Math.floor(Math.random() * addresses.length)].ip, port: endpointPort.port, serverName };
  }
  throw new Error(`no endpoints available for service "${name}"`);
}

/** The front-proxy client certificate (`--proxy-client-cert-file`, `--proxy-client-key-file`), as PEM. */
export interface ProxyClientCertificate {
  certPem: string;
  keyPem: string;
}

/**
 * The TLS settings of a connection to an APIService's server: its caBundle (or the host's roots, or no
 * check with insecureSkipTLSVerify), the service's DNS name as the name checked, and this server's
 * front-proxy client certificate.
 */
export function backendTls(apiService: APIService, backend: ResolvedBackend, client: ProxyClientCertificate | undefined): ConnectionOptions {
  const spec = apiService.spec;
  const caBundle = spec?.caBundle ? Buffer.from(spec.caBundle, 'base64').toString('utf8') : undefined;
  return {
    ...(client ? { cert: client.certPem, key: client.keyPem } : {}),
    ...(caBundle ? { ca: caBundle } : {}),
    rejectUnauthorized: spec?.insecureSkipTLSVerify !== true,
    // The certificate is checked against the service's name, whatever address the connection went to.
    servername: backend.serverName,
  };
}

/** The identity headers a proxied request carries (`--requestheader-*-headers`, X-Remote-* by default). */
export interface IdentityHeaderNames {
  user: string;
  group: string;
  extraPrefix: string;
}

export const DEFAULT_IDENTITY_HEADERS: IdentityHeaderNames = { user: 'X-Remote-User', group: 'X-Remote-Group', extraPrefix: 'X-Remote-Extra-' };

/** client-go's SetAuthProxyHeaders: the user, each group, and each extra value under its escaped key. */
export function identityHeaders(user: UserInfo, names: IdentityHeaderNames): Array<[string, string]> {
  const out: Array<[string, string]> = [[names.user, user.name]];
  for (const group of user.groups) out.push([names.group, group]);
  for (const [key, values] of Object.entries(user.extra ?? {})) {
    const escaped = encodeURIComponent(key.toLowerCase()).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    for (const value of values) out.push([`${names.extraPrefix}${escaped}`, value]);
  }
  return out;
}

export function hostForUrl(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}
