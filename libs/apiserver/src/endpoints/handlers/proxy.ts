import { lookup as dnsLookup } from 'node:dns/promises';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { connect as netConnect, isIP } from 'node:net';
import { posix } from 'node:path';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { isGlobalUnicast, type ProxyLookup, type ProxyTarget } from '@svc/api';
import { failureStatus, spliceDuplex, StatusError, StatusReasons } from '@svc/machinery';
import type { NodeAgentConnector } from '../../nodeagent/node-agent-connector';
import { requestUrl } from '../../request/request-context';
import { takeUpgrade, isUpgrade } from '../../request/upgrade';
import { DROPPED_PROXY_REQUEST_HEADERS, HOP_BY_HOP_HEADERS } from '../../request/proxied-headers';
import { methodNotAllowed, NOT_FOUND_MESSAGE, notFound, type ResourceRequest } from '../request-scope';

function badRequest(message: string): StatusError {
  return new StatusError(failureStatus(400, StatusReasons.BadRequest, message, {}));
}

function unreachable(message: string): StatusError {
  return new StatusError(failureStatus(503, StatusReasons.ServiceUnavailable, `error trying to reach service: ${message}`, {}));
}

/** The path a proxy request names beyond `.../<resource>/<id>/proxy`, and what comes before it (raw, as sent). */
export interface ProxiedPath {
  /** `/api/v1/namespaces/<ns>/services/<id>/proxy`. */
  prefix: string;
  /** Empty for `.../proxy`, `/` for `.../proxy/`, else `/<rest>`. */
  path: string;
}

const ENCODED_SEPARATOR = /%(2f|5c)/i;

/**
 * Splits the raw path of a proxy request. A proxied path may not step out of itself: a `.` or `..`
 * segment (plain or percent-encoded), an encoded slash or backslash, a control character or a
 * malformed escape is refused with 400 before anything is sent.
 */
export function proxiedPathOf(rawPath: string, resource: string, id: string): ProxiedPath {
  const segments = rawPath.split('/');
  let at = -1;
  for (let i = 0; i + 2 < segments.length; i++) {
    if (segments[i] === resource && segments[i + 2] === 'proxy' && safeDecode(segments[i + 1]) === id) {
      at = i;
      break;
    }
  }
  if (at < 0) throw badRequest('the proxied path cannot be read from the request path');
  const rest = segments.slice(at + 3);
  for (const segment of rest) {
    const decoded = safeDecode(segment);
    if (decoded === undefined || ENCODED_SEPARATOR.test(segment) || decoded === '.' || decoded === '..' || /[\u0000-\u001f\u007f\\]/.test(decoded)) {
      throw badRequest(`the proxied path may not contain ${JSON.stringify(decoded ?? segment)}`);
    }
  }
  return { prefix: segments.slice(0, at + 3).join('/'), path: rest.length === 0 ? '' : `/${rest.join('/')}` };
}

function safeDecode(segment: string): string | undefined {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

// Kubernetes drops the Authorization, impersonation and front-proxy headers once they have done their work.
const DROPPED_REQUEST_HEADERS = DROPPED_PROXY_REQUEST_HEADERS;
const DROPPED_REQUEST_PREFIXES = ['impersonate-', 'x-remote-'];
const DROPPED_RESPONSE_HEADERS = new Set([
  ...HOP_BY_HOP_HEADERS,
  // Kubernetes' corsRemovingTransport: the API server's own CORS policy is the one that holds.
  'access-control-allow-credentials',
  'access-control-allow-headers',
  'access-control-allow-methods',
  'access-control-allow-origin',
]);

function connectionTokens(headers: IncomingMessage['headers']): Set<string> {
  const value = headers.connection;
  return new Set((value ?? '').split(',').map((t) => t.trim().toLowerCase()));
}

/** The request's headers for the target, in their order, with the hop-by-hop and credential ones left out. */
function forwardedHeaders(req: IncomingMessage, forwardedUri: string, keepUpgrade: boolean): Array<[string, string]> {
  const named = connectionTokens(req.headers);
  const out: Array<[string, string]> = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i];
    const lower = name.toLowerCase();
    const upgradeHeader = keepUpgrade && (lower === 'connection' || lower === 'upgrade');
    if (!upgradeHeader && (DROPPED_REQUEST_HEADERS.has(lower) || named.has(lower))) continue;
    if (DROPPED_REQUEST_PREFIXES.some((p) => lower.startsWith(p)) || lower === 'x-forwarded-uri') continue;
    if (lower === 'x-forwarded-for') continue;
    out.push([name, req.rawHeaders[i + 1]]);
  }
  const client = req.socket.remoteAddress;
  const prior = [req.headers['x-forwarded-for'] ?? []].flat().join(', ');
  if (client) out.push(['X-Forwarded-For', prior ? `${prior}, ${client}` : client]);
  out.push(['X-Forwarded-Uri', forwardedUri]);
  // The target sees the Host the client asked for, as Kubernetes' upgrade-aware proxy sends it.
  if (req.headers.host) out.push(['Host', req.headers.host]);
  return out;
}

/**
 * Kubernetes' proxy Transport's rewriteURL: a redirect to the target itself (a path, or the target's
 * own host) is turned into a path under the proxy prefix; a redirect elsewhere, or a relative one,
 * is left as it is.
 */
export function rewriteLocation(location: string, prefix: string, targetHost: string, requestHost: string): string {
  const match = /^(?:([a-z][a-z0-9+.-]*:))?(?:\/\/([^/?#]*))?([^?#]*)(.*)$/is.exec(location);
  if (!match) return location;
  const [, scheme = '', host, path, rest] = match;
  const authority = host ?? '';
  const differentHost = authority !== '' && authority !== targetHost && authority !== requestHost;
  if (differentHost || !path.startsWith('/')) return location;
  const head = authority !== '' && authority === requestHost ? `${scheme}//${authority}` : '';
  if (path.startsWith(prefix)) return `${head}${path}${rest}`;
  let joined = posix.join(prefix, path);
  if (joined.length > 1 && joined.endsWith('/')) joined = joined.slice(0, -1);
  if (path.endsWith('/')) joined += '/';
  return `${head}${joined}${rest}`;
}

interface Endpoint {
  scheme: 'http' | 'https';
  host: string;
  port: number;
  /** TLS settings: the node agent's client certificate and CA, or none verified (Kubernetes' proxy transport). */
  tls: ConnectionOptions;
}

const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 64 });
const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 64, rejectUnauthorized: false });

export interface ProxyRequest {
  target: ProxyTarget;
  path: ProxiedPath;
  nodeAgents?: NodeAgentConnector;
}

/**
 * Kubernetes' UpgradeAwareHandler for the proxy subresources: every method passed through with its
 * query, an upgrade (WebSocket, SPDY) spliced byte for byte, answers streamed back as they come with
 * redirects rewritten under the proxy prefix. A target that cannot be reached is a 503 Status.
 */
export async function serveProxy(req: IncomingMessage, res: ServerResponse, { target, path, nodeAgents }: ProxyRequest): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  const rawUrl = req.url ?? '';
  const queryAt = rawUrl.indexOf('?');
  const query = queryAt < 0 ? '' : rawUrl.slice(queryAt);
  if (path.path === '' && (method === 'GET' || method === 'HEAD') && !isUpgrade(req)) {
    // Kubernetes' proxyRedirectsforRootPath: relative links of the target's root page need the slash.
    res.writeHead(301, { Location: `${path.prefix}/${query}`, 'Content-Length': 0 });
    res.end();
    return;
  }
  const endpoint = await endpointOf(target, nodeAgents);
  const forwardedUri = `${path.prefix}${path.path}`;
  const upstreamPath = `${path.path === '' ? '/' : path.path}${query}`;
  if (isUpgrade(req)) {
    const upgrade = takeUpgrade(req);
    if (upgrade) return upgradeTo(endpoint, req, upstreamPath, forwardedUri, upgrade.socket, upgrade.head);
  }
  await forward(endpoint, req, res, method, upstreamPath, forwardedUri, path.prefix);
}

async function endpointOf(target: ProxyTarget, nodeAgents: NodeAgentConnector | undefined): Promise<Endpoint> {
  if (target.via === 'direct') {
    return { scheme: target.scheme, host: target.host, port: target.port ?? (target.scheme === 'https' ? 443 : 80), tls: { rejectUnauthorized: false } };
  }
  if (!nodeAgents) throw new StatusError(failureStatus(503, StatusReasons.ServiceUnavailable, 'this server has no connection to node agents', {}));
  const agent = await nodeAgents.endpoint(target.nodeName);
  // Kubernetes' isProxyableHostname, for the agent's port as for any other: a Node whose address is
  // loopback or link-local would otherwise point this server at its own local services.
  const addresses = isIP(agent.host)
    ? [agent.host]
    : await dnsLookup(agent.host, { all: true }).then(
        (all) => all.map((a) => a.address),
        () => [],
      );
  if (addresses.length === 0) throw badRequest('no addresses for hostname');
  if (!addresses.every(isGlobalUnicast)) throw badRequest('address not allowed');
  if (target.port === undefined) return { scheme: 'https', host: agent.host, port: agent.port, tls: agent.tls };
  return { scheme: target.scheme ?? 'http', host: agent.host, port: target.port, tls: { rejectUnauthorized: false } };
}

function hostPort(endpoint: Endpoint): string {
  const host = isIP(endpoint.host) === 6 ? `[${endpoint.host}]` : endpoint.host;
  return `${host}:${endpoint.port}`;
}

function forward(
  endpoint: Endpoint,
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  upstreamPath: string,
  forwardedUri: string,
  prefix: string,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const send = endpoint.scheme === 'https' ? httpsRequest : httpRequest;
    let answered = false;
    const upstream = send(upstreamRequest(endpoint, req, method, upstreamPath, forwardedUri), (answer) => {
      answered = true;
      copyAnswerHeaders(answer, res, endpoint, prefix, req.headers.host ?? '');
      res.writeHead(answer.statusCode ?? 502);
      res.flushHeaders();
      answer.pipe(res);
      answer.on('end', () => resolve());
      answer.on('error', () => {
        res.destroy();
        resolve();
      });
    });
    upstream.on('error', (error) => {
      if (answered) {
        res.destroy();
        resolve();
        return;
      }
      reject(unreachable(error.message));
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    // The body streams through as it arrives; nothing of it is buffered or parsed here.
    req.pipe(upstream);
  });
}

/** The request to the target: the forwarded headers, its TLS settings, and a shared agent unless its TLS is its own. */
function upstreamRequest(endpoint: Endpoint, req: IncomingMessage, method: string, upstreamPath: string, forwardedUri: string) {
  const headers = forwardedHeaders(req, forwardedUri, false);
  const custom = endpoint.tls.cert !== undefined || endpoint.tls.ca !== undefined;
  return {
    host: endpoint.host,
    port: endpoint.port,
    method,
    path: upstreamPath,
    headers: headers.flat() as unknown as OutgoingHttpHeaders,
    setHost: false,
    ...(endpoint.scheme === 'https' ? { ...endpoint.tls, servername: isIP(endpoint.host) ? undefined : endpoint.host } : {}),
    agent: endpoint.scheme === 'https' ? (custom ? false : httpsAgent) : httpAgent,
  };
}

/** The target's answer headers on the client's answer: hop-by-hop ones dropped, a Location rewritten to the proxy path. */
function copyAnswerHeaders(answer: IncomingMessage, res: ServerResponse, endpoint: Endpoint, prefix: string, clientHost: string): void {
  const seenNames = new Set<string>();
  const named = connectionTokens(answer.headers);
  for (let i = 0; i < answer.rawHeaders.length; i += 2) {
    const name = answer.rawHeaders[i];
    const lower = name.toLowerCase();
    if (DROPPED_RESPONSE_HEADERS.has(lower) || named.has(lower)) continue;
    let value = answer.rawHeaders[i + 1];
    if (lower === 'location') value = rewriteLocation(value, prefix, hostPort(endpoint), clientHost);
    // The target's headers replace what the filters set (its Content-Type, say), repeated ones kept (Set-Cookie).
    if (seenNames.has(lower)) res.appendHeader(name, value);
    else {
      seenNames.add(lower);
      res.setHeader(name, value);
    }
  }
}

async function upgradeTo(endpoint: Endpoint, req: IncomingMessage, upstreamPath: string, forwardedUri: string, socket: Duplex, head: Buffer): Promise<void> {
  let upstream: Duplex;
  try {
    upstream = await new Promise<Duplex>((resolve, reject) => {
      const servername = isIP(endpoint.host) ? undefined : endpoint.host;
      const connection =
        endpoint.scheme === 'https'
          ? tlsConnect({ host: endpoint.host, port: endpoint.port, servername, ...endpoint.tls }, () => resolve(connection))
          : netConnect({ host: endpoint.host, port: endpoint.port }, () => resolve(connection));
      connection.setTimeout(10_000, () => connection.destroy(new Error('timed out connecting')));
      connection.once('error', reject);
    });
  } catch (error) {
    const status = unreachable(error instanceof Error ? error.message : String(error)).status;
    const body = JSON.stringify(status);
    socket.end(
      `HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    return;
  }
  (upstream as { setTimeout?: (ms: number) => void }).setTimeout?.(0);
  const lines = [`${req.method ?? 'GET'} ${upstreamPath} HTTP/1.1`];
  for (const [name, value] of forwardedHeaders(req, forwardedUri, true)) lines.push(`${name}: ${value}`);
  upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
  if (head.length > 0) upstream.write(head);
  spliceDuplex(upstream, socket);
}

// Kubernetes' ProxyREST ConnectMethods.
const PROXY_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

/** `<resource>/<name>[:<port>]/proxy/<path>`: to the object's own address, or its node agent (Kubernetes' ProxyREST). */
export async function serveProxySubresource(request: ResourceRequest): Promise<void> {
  const { scope, req, deps } = request;
  const proxy = scope.def.strategy.proxy!;
  if (!PROXY_METHODS.has((req.method ?? 'GET').toUpperCase())) throw methodNotAllowed();
  const name = proxy.nameOf(scope.name);
  if (name === undefined) {
    throw new StatusError(failureStatus(400, StatusReasons.BadRequest, `invalid ${scope.def.kind.toLowerCase()} request ${JSON.stringify(scope.name)}`, {}));
  }
  const path = proxiedPathOf(requestUrl(req).pathname, scope.def.resource, scope.name);
  const object = await scope.registry.get(scope.namespace, name, {});
  const lookup: ProxyLookup = async (resource, namespace, objectName) => {
    const registries = deps.registries;
    const registry = { pods: registries.pods, endpoints: registries.endpoints, nodes: registries.nodes }[resource];
    if (registry === undefined) throw notFound(NOT_FOUND_MESSAGE);
    return registry.get(namespace, objectName, {});
  };
  const location = await proxy.location(object, scope.name, lookup);
  const res = request.res.stream();
  if (res !== undefined) await serveProxy(req, res, { target: location, path, nodeAgents: deps.nodeAgents });
}
