import { BlockList, isIP } from 'node:net';
import { failureStatus, isStatusError, StatusError, StatusReasons } from '@svc/machinery';
import type { Endpoints } from '../../kinds/core/endpoints';
import type { Node } from '../../kinds/core/node';
import type { Pod } from '../../kinds/core/pod';
import type { Service } from '../../kinds/core/service';
import type { ApiObject } from '../kind-definition';
import type { ProxyLookup, ProxySubresource, ProxyTarget } from '../kind-strategy';
import { as } from './define-kind';

function badRequest(message: string): StatusError {
  return new StatusError(failureStatus(400, StatusReasons.BadRequest, message, {}));
}

function unavailable(message: string): StatusError {
  return new StatusError(failureStatus(503, StatusReasons.ServiceUnavailable, message, {}));
}

/** Kubernetes' SplitSchemeNamePort: `name`, `name:port` or `scheme:name:port`, the scheme empty, http or https. */
export function splitSchemeNamePort(id: string): { scheme: '' | 'http' | 'https'; name: string; port: string } | undefined {
  const parts = id.split(':');
  let scheme = '';
  let name: string;
  let port = '';
  if (parts.length === 1) [name] = parts;
  else if (parts.length === 2) [name, port] = parts;
  else if (parts.length === 3) [scheme, name, port] = parts;
  else return undefined;
  if (name === '' || (scheme !== '' && scheme !== 'http' && scheme !== 'https')) return undefined;
  return { scheme, name, port };
}

// Go's IP.IsGlobalUnicast: anything but unspecified, loopback, link-local, multicast and broadcast.
const NOT_GLOBAL_UNICAST = new BlockList();
NOT_GLOBAL_UNICAST.addAddress('0.0.0.0');
NOT_GLOBAL_UNICAST.addSubnet('127.0.0.0', 8);
NOT_GLOBAL_UNICAST.addSubnet('169.254.0.0', 16);
NOT_GLOBAL_UNICAST.addSubnet('224.0.0.0', 4);
NOT_GLOBAL_UNICAST.addAddress('255.255.255.255');
NOT_GLOBAL_UNICAST.addAddress('::', 'ipv6');
NOT_GLOBAL_UNICAST.addAddress('::1', 'ipv6');
NOT_GLOBAL_UNICAST.addSubnet('fe80::', 10, 'ipv6');
NOT_GLOBAL_UNICAST.addSubnet('ff00::', 8, 'ipv6');

/** Whether an IP literal is a global unicast address (the only pod addresses Kubernetes proxies to). */
export function isGlobalUnicast(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return !NOT_GLOBAL_UNICAST.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

function portNumber(port: string): number | undefined {
  if (port === '') return undefined;
  const n = Number(port);
  // A named port is resolved by nobody here; Kubernetes' dial of it fails the same way.
  if (!/^\d+$/.test(port) || n < 1 || n > 65535) throw unavailable(`error trying to reach service: invalid port ${JSON.stringify(port)}`);
  return n;
}

function nameOf(id: string): string | undefined {
  return splitSchemeNamePort(id)?.name;
}

/** Kubernetes' pod ResourceLocation: the pod's first IP, the port asked or its first declared container port. */
export const POD_PROXY: ProxySubresource = {
  nameOf,
  location(object: ApiObject, id: string): Promise<ProxyTarget> {
    const split = splitSchemeNamePort(id);
    if (!split) throw badRequest(`invalid pod request ${JSON.stringify(id)}`);
    const pod = as<Pod>(object);
    let port = split.port;
    if (port === '') {
      const declared = (pod.spec?.containers ?? []).find((c) => (c.ports ?? []).length > 0);
      if (declared) port = String(declared.ports![0].containerPort);
    }
    const ip = pod.status?.podIPs?.[0]?.ip ?? pod.status?.podIP ?? '';
    if (!isGlobalUnicast(ip)) throw badRequest('address not allowed');
    return Promise.resolve({ via: 'direct', scheme: split.scheme || 'http', host: ip, port: portNumber(port) });
  },
};

function randomStart(length: number): number {
  return Math.floor(Math.random() * length);
}

/** An Endpoints address is used only when it names a pod of the namespace that has that IP (Kubernetes' isValidAddress). */
async function isValidAddress(
  address: { ip?: string; targetRef?: { kind?: string; namespace?: string; name?: string } },
  namespace: string,
  lookup: ProxyLookup,
) {
  const ref = address.targetRef;
  if (!ref?.name || ref.namespace !== namespace) return false;
  try {
    const pod = as<Pod>(await lookup('pods', namespace, ref.name));
    const ips = [...(pod.status?.podIPs ?? []).map((p) => p.ip), pod.status?.podIP];
    return ips.includes(address.ip);
  } catch (error) {
    if (isStatusError(error) && error.code === 404) return false;
    throw error;
  }
}

/**
 * Kubernetes' service ResourceLocation: a port number names the Service port whose name the
 * Endpoints use; a random ready address (never a not-ready one) of a random subset with that port.
 */
export const SERVICE_PROXY: ProxySubresource = {
  nameOf,
  async location(object: ApiObject, id: string, lookup: ProxyLookup): Promise<ProxyTarget> {
    const split = splitSchemeNamePort(id);
    if (!split) throw badRequest(`invalid service request ${JSON.stringify(id)}`);
    const service = as<Service>(object);
    const namespace = service.metadata?.namespace ?? '';
    let portName = split.port;
    if (/^\d+$/.test(split.port)) {
      const wanted = Number(split.port);
      const declared = (service.spec?.ports ?? []).find((p) => p.port === wanted);
      if (!declared) throw unavailable(`no service port ${wanted} found for service ${JSON.stringify(split.name)}`);
      portName = declared.name ?? '';
    }
    const endpoints = as<Endpoints>(await lookup('endpoints', namespace, split.name));
    const subsets = endpoints.subsets ?? [];
    if (subsets.length === 0) throw unavailable(`no endpoints available for service ${JSON.stringify(split.name)}`);
    const first = randomStart(subsets.length);
    for (let s = 0; s < subsets.length; s++) {
      const subset = subsets[(first + s) % subsets.length];
      const addresses = subset.addresses ?? [];
      if (addresses.length === 0) continue;
      for (const port of subset.ports ?? []) {
        if ((port.name ?? '') !== portName) continue;
        const start = randomStart(addresses.length);
        for (let a = 0; a < addresses.length; a++) {
          const address = addresses[(start + a) % addresses.length];
          if (!(await isValidAddress(address, namespace, lookup))) continue;
          return { via: 'direct', scheme: split.scheme || 'http', host: address.ip, port: port.port };
        }
      }
    }
    throw unavailable(`no endpoints available for service ${JSON.stringify(id)}`);
  },
};

/**
 * Kubernetes' node ResourceLocation: no port, or the agent's own, goes to the node agent over the API
 * server's connection to it; another port goes to that port of the node's address. Either way the
 * address must be global unicast (checked where it is resolved).
 */
export const NODE_PROXY: ProxySubresource = {
  nameOf,
  location(object: ApiObject, id: string): Promise<ProxyTarget> {
    const split = splitSchemeNamePort(id);
    if (!split) throw badRequest(`invalid node request ${JSON.stringify(id)}`);
    const node = as<Node>(object);
    const nodeName = node.metadata?.name ?? split.name;
    const agentPort = node.status?.daemonEndpoints?.kubeletEndpoint?.Port || 10250;
    if (split.port === '' || split.port === String(agentPort)) return Promise.resolve({ via: 'nodeAgent', nodeName });
    return Promise.resolve({ via: 'nodeAgent', nodeName, port: portNumber(split.port), scheme: split.scheme || 'http' });
  },
};
