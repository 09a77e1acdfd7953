import type { Pod, Service } from '@svc/api';

/** Services whose variables every pod gets, from the default namespace, whatever `enableServiceLinks` says. */
const MASTER_SERVICES = new Set(['kubernetes']);

function hasClusterIP(service: Service): boolean {
  const ip = service.spec?.clusterIP;
  return !!ip && ip !== 'None';
}

function variableName(name: string): string {
  return name.replace(/-/g, '_').toUpperCase();
}

function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** One Service's variables as Kubernetes writes them: `<NAME>_SERVICE_HOST`/`_PORT[_<PORT NAME>]` and Docker's link variables. */
function serviceVariables(service: Service): Array<[string, string]> {
  const prefix = variableName(service.metadata?.name ?? '');
  const ip = service.spec?.clusterIP ?? '';
  const ports = service.spec?.ports ?? [];
  const out: Array<[string, string]> = [[`${prefix}_SERVICE_HOST`, ip]];
  if (ports.length > 0) out.push([`${prefix}_SERVICE_PORT`, String(ports[0].port)]);
  for (const port of ports) if (port.name) out.push([`${prefix}_SERVICE_PORT_${variableName(port.name)}`, String(port.port)]);
  ports.forEach((port, index) => {
    const protocol = port.protocol || 'TCP';
    const url = `${protocol.toLowerCase()}://${joinHostPort(ip, port.port)}`;
    if (index === 0) out.push([`${prefix}_PORT`, url]);
    const portPrefix = `${prefix}_PORT_${port.port}_${protocol.toUpperCase()}`;
    out.push([portPrefix, url], [`${portPrefix}_PROTO`, protocol.toLowerCase()], [`${portPrefix}_PORT`, String(port.port)], [`${portPrefix}_ADDR`, ip]);
  });
  return out;
}

/**
 * The variables a pod's containers get from Services, as the kubelet makes them: the `kubernetes`
 * Service of the default namespace always (so in-cluster clients find the API server), and with
 * `enableServiceLinks` (the default) every Service of the pod's namespace that has a ClusterIP.
 */
export function serviceEnvironment(pod: Pod, services: readonly Service[]): Map<string, string> {
  const namespace = pod.metadata?.namespace ?? 'default';
  const links = pod.spec?.enableServiceLinks !== false;
  const chosen = new Map<string, Service>();
  for (const service of services) {
    if (!hasClusterIP(service)) continue;
    const name = service.metadata?.name ?? '';
    if (service.metadata?.namespace === 'default' && MASTER_SERVICES.has(name)) {
      if (!chosen.has(name)) chosen.set(name, service);
    } else if (service.metadata?.namespace === namespace && links) {
      chosen.set(name, service);
    }
  }
  const env = new Map<string, string>();
  for (const service of chosen.values()) for (const [name, value] of serviceVariables(service)) env.set(name, value);
  return env;
}
