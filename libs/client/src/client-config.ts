import { arch, platform } from 'node:os';

export const JSON_MEDIA_TYPE = 'application/json' as const;
/** The specification's name for protobuf (spec 2's default of `--svc-api-content-type`). */
export const SVC_PROTOBUF_MEDIA_TYPE = 'application/vnd.svc.protobuf' as const;
/** Kubernetes' protobuf: the envelope with the kind's own generated message inside. */
export const KUBERNETES_PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf' as const;

/** The values `ClientConfig.contentType` (and `--svc-api-content-type`) accepts. */
export const CLIENT_CONTENT_TYPES = [JSON_MEDIA_TYPE, SVC_PROTOBUF_MEDIA_TYPE, KUBERNETES_PROTOBUF_MEDIA_TYPE] as const;

/** How a client encodes what it sends and asks for answers: see `ClientConfig.contentType`. */
export type WireFormat = 'json' | 'protobuf';

/** client-go's defaults for a zero `qps` / `burst` (rest.DefaultQPS, rest.DefaultBurst). */
export const DEFAULT_QPS = 5;
export const DEFAULT_BURST = 10;
/** client-go retries a request this many times when the server asks it to wait. */
export const DEFAULT_MAX_RETRIES = 10;
/** The longest single wait a `Retry-After` header may impose; longer asks are shortened to this. */
export const DEFAULT_MAX_RETRY_WAIT_MS = 60_000;

export const DEFAULT_USER_AGENT = `svc-client/0.1.0 (${platform()}/${arch() === 'x64' ? 'amd64' : arch()}) node/${process.versions.node}`;

/** How to reach and authenticate to one API server. */
export interface ClientConfig {
  /** `https://host:port` (or `http://` for a plain-text server); a path prefix is kept. */
  server: string;
  /**
   * Further addresses of the same API (several API servers on one store): when the current server
   * cannot be reached, the next one is used from then on. A request that certainly did not reach a
   * server (connection refused or unreachable) goes to the next at once, a write too; a read whose
   * connection broke is retried there as well.
   */
  servers?: readonly string[];
  /** PEM bundle the server's certificate must chain to; the system roots when absent. */
  ca?: string;
  /** Turns certificate verification off. Never the default. */
  insecureSkipTlsVerify?: boolean;
  /** Name checked against the server certificate instead of the URL's host. */
  tlsServerName?: string;
  /** Bearer token. */
  token?: string;
  /** File holding a bearer token; re-read at most once a minute so that rotated tokens are picked up. */
  tokenFile?: string;
  /**
   * Gives the bearer token of each request, before `token` and `tokenFile` (client-go's token source):
   * for tokens obtained at run time and renewed before they expire, such as a TokenRequest's.
   */
  tokenSource?: () => Promise<string>;
  /** Basic credentials; sent only when a password is present. */
  username?: string;
  password?: string;
  /** PEM client certificate and key for mutual TLS. */
  clientCert?: string;
  clientKey?: string;
  /**
   * Requests per second: 0 means client-go's default (5), a negative value turns limiting off.
   */
  qps?: number;
  /** Bucket size: 0 means client-go's default (10). */
  burst?: number;
  userAgent?: string;
  /** Deadline of one non-watch request attempt in ms; 0 or absent means none (the server's request timeout applies). */
  timeoutMs?: number;
  /**
   * The `--svc-api-content-type` setting: `application/json` (the default here, as in client-go), or
   * protobuf, named `application/vnd.svc.protobuf` (the specification's name) or
   * `application/vnd.kubernetes.protobuf` (Kubernetes' name): both mean Kubernetes' protobuf, the
   * kind's own generated message in the envelope, and go on the wire under Kubernetes' name, which
   * every Kubernetes API server and this one read and answer. With protobuf, requests on built-in
   * kinds that have a message send their bodies in it and ask `Accept: application/vnd.kubernetes.protobuf,
   * application/json`, as client-go's components do; custom resources, kinds without a message,
   * patches (JSON by protocol) and metadata-only reads stay JSON. Any other value is refused.
   */
  contentType?: string;
  /** Retries after 429/503 with `Retry-After` and after connection resets of reads. */
  maxRetries?: number;
  maxRetryWaitMs?: number;
  /** The namespace of the context the file selected; informational, resource clients never apply it on their own. */
  namespace?: string;
}

/** A ClientConfig with every default applied; a negative `qps` means no limiting. */
export interface ResolvedClientConfig extends ClientConfig {
  qps: number;
  burst: number;
  userAgent: string;
  timeoutMs: number;
  maxRetries: number;
  maxRetryWaitMs: number;
  contentType: string;
  /** What `contentType` means on the wire. */
  wireFormat: WireFormat;
}

/** The wire format of a `contentType` setting; empty means JSON. Throws a RangeError naming the accepted values for anything else. */
export function wireFormatOf(contentType: string | undefined): WireFormat {
  const value = (contentType ?? '').trim().toLowerCase();
  if (value === '' || value === JSON_MEDIA_TYPE) return 'json';
  if (value === SVC_PROTOBUF_MEDIA_TYPE || value === KUBERNETES_PROTOBUF_MEDIA_TYPE) return 'protobuf';
  throw new RangeError(`content type ${JSON.stringify(contentType)} is not supported; use one of ${CLIENT_CONTENT_TYPES.join(', ')}`);
}

export function resolveClientConfig(config: ClientConfig): ResolvedClientConfig {
  const qps = config.qps === undefined || config.qps === 0 ? DEFAULT_QPS : config.qps;
  const burst = config.burst === undefined || config.burst === 0 ? DEFAULT_BURST : config.burst;
  if (!Number.isFinite(qps)) throw new RangeError(`qps must be a finite number, got ${config.qps}`);
  if (!Number.isInteger(burst) || burst < 0) throw new RangeError(`burst must be a non-negative integer, got ${config.burst}`);
  return {
    ...config,
    server: normalizeServer(config.server),
    servers: config.servers?.map(normalizeServer),
    qps,
    burst,
    userAgent: config.userAgent || DEFAULT_USER_AGENT,
    timeoutMs: config.timeoutMs ?? 0,
    maxRetries: config.maxRetries ?? DEFAULT_MAX_RETRIES,
    maxRetryWaitMs: config.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS,
    contentType: config.contentType || JSON_MEDIA_TYPE,
    wireFormat: wireFormatOf(config.contentType),
  };
}

/** `host:port` becomes `https://host:port`, as client-go reads a host without a scheme; a trailing slash goes. */
export function normalizeServer(server: string): string {
  const trimmed = server.trim();
  if (!trimmed) throw new Error('the API server address is empty');
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`;
  const url = new URL(withScheme);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error(`the API server address ${JSON.stringify(server)} must use https or http`);
  }
  if (url.search || url.hash) throw new Error(`the API server address ${JSON.stringify(server)} may not carry a query or fragment`);
  return url.toString().replace(/\/+$/, '');
}
