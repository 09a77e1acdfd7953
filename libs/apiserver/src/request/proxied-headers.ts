/** RFC 7230's hop-by-hop headers (and the old `proxy-connection`): a proxy never passes them on. */
export const HOP_BY_HOP_HEADERS: readonly string[] = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

/**
 * The request headers this server drops when it proxies a request to another server (a node agent,
 * a pod, an aggregated API server): the hop-by-hop ones, the host, and what authenticated the caller
 * here, as Kubernetes drops Authorization once it has done its work.
 */
export const DROPPED_PROXY_REQUEST_HEADERS: ReadonlySet<string> = new Set([...HOP_BY_HOP_HEADERS, 'host', 'authorization']);
