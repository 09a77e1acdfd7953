import { readFileSync } from 'node:fs';
import { Client, Metadata, credentials, status as GrpcStatus, type ChannelCredentials, type ClientDuplexStream, type ServiceError } from '@grpc/grpc-js';
import { StorageError } from '../storage-error';
import { ETCD, type EtcdMethod, type WatchRequest, type WatchResponse } from './etcd-protocol';

/** One etcd member the client may talk to, from `--store-servers`. */
export interface EtcdEndpoint {
  /** As given, for messages (`https://10.0.0.1:2379`). */
  url: string;
  /** `host:port`, the gRPC target. */
  target: string;
  secure: boolean;
}

export interface EtcdTlsFiles {
  /** `--store-cafile`: the CA the members' certificates chain to. */
  caFile?: string;
  /** `--store-certfile` and `--store-keyfile`: this client's certificate, for members that ask for one. */
  certFile?: string;
  keyFile?: string;
}

export interface EtcdClientOptions extends EtcdTlsFiles {
  endpoints: readonly string[];
  /** How long one operation may take over all its attempts (ms); default 15000. */
  requestTimeoutMs?: number;
}

export interface CallOptions {
  /**
   * A write may have taken effect when its answer is lost: it is sent again elsewhere only when it
   * certainly was not (the member refused it before proposing it, or no connection was made).
   */
  write?: boolean;
  /** Over all attempts; default the client's request timeout. */
  timeoutMs?: number;
  /** One attempt on one member; a read that takes longer is tried on the next member. Default 3000. */
  attemptTimeoutMs?: number;
}

/** The metadata etcd reads to refuse a request (or end a watch) on a member that has no leader. */
const REQUIRE_LEADER = 'hasleader';
const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;
const DEFAULT_ATTEMPT_TIMEOUT_MS = 3_000;

/** Parses `--store-servers` entries: `http://host:port`, `https://host:port` or `host:port`. */
export function parseEtcdEndpoints(servers: readonly string[]): EtcdEndpoint[] {
  const endpoints = servers
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((server): EtcdEndpoint => {
      const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(server) ? server : `http://${server}`;
      let url: URL;
      try {
        url = new URL(withScheme);
      } catch {
        throw new StorageError('InvalidArgument', `--store-servers: ${JSON.stringify(server)} is not a URL (scheme://host:port)`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new StorageError('InvalidArgument', `--store-servers: ${server} must use http or https to reach etcd`);
      }
      if (url.port === '') throw new StorageError('InvalidArgument', `--store-servers: ${server} names no port (etcd's client port is usually 2379)`);
      return { url: server, target: `${url.hostname}:${url.port}`, secure: url.protocol === 'https:' };
    });
  if (endpoints.length === 0) {
    throw new StorageError('InvalidArgument', 'the store3 backend needs --store-servers (the etcd members, e.g. https://127.0.0.1:2379)');
  }
  if (new Set(endpoints.map((e) => e.secure)).size > 1) {
    throw new StorageError('InvalidArgument', '--store-servers mixes http and https members; one etcd cluster speaks one of them');
  }
  return endpoints;
}

function channelCredentials(endpoint: EtcdEndpoint, tls: EtcdTlsFiles): ChannelCredentials {
  if (!endpoint.secure) {
    if (tls.certFile || tls.keyFile || tls.caFile) {
      throw new StorageError('InvalidArgument', `--store-cafile, --store-certfile and --store-keyfile need https:// members; ${endpoint.url} is plain http`);
    }
    return credentials.createInsecure();
  }
  if (Boolean(tls.certFile) !== Boolean(tls.keyFile)) {
    throw new StorageError('InvalidArgument', '--store-certfile and --store-keyfile are given together');
  }
  const read = (file: string | undefined, flag: string): Buffer | null => {
    if (!file) return null;
    try {
      return readFileSync(file);
    } catch (error) {
      throw new StorageError('InvalidArgument', `${flag} ${file}: ${(error as Error).message}`);
    }
  };
  return credentials.createSsl(read(tls.caFile, '--store-cafile'), read(tls.keyFile, '--store-keyfile'), read(tls.certFile, '--store-certfile'));
}

export interface GrpcFailure {
  code: GrpcStatus;
  details: string;
}

export function grpcFailure(error: unknown): GrpcFailure | undefined {
  const e = error as Partial<ServiceError> | undefined;
  return typeof e?.code === 'number' ? { code: e.code, details: String(e.details ?? e.message ?? '') } : undefined;
}

/** The write never reached a member's raft log: sending it again elsewhere cannot apply it twice. */
function certainlyNotApplied(f: GrpcFailure): boolean {
  if (/etcdserver: (no leader|not capable|too many requests)/.test(f.details)) return true;
  return (
    f.code === GrpcStatus.UNAVAILABLE &&
    /No connection established|ECONNREFUSED|connect(ion)? (refused|failed)|Failed to connect|name resolution/i.test(f.details)
  );
}

/** The member could not answer now; another one may. */
function memberTrouble(f: GrpcFailure): boolean {
  return (
    f.code === GrpcStatus.UNAVAILABLE ||
    f.code === GrpcStatus.DEADLINE_EXCEEDED ||
    f.code === GrpcStatus.CANCELLED ||
    /etcdserver: (no leader|not capable|too many requests|request timed out|leader changed|server stopped)/.test(f.details)
  );
}

/** A failure as the storage contract names it. */
export function storageErrorOf(error: unknown, what: string): StorageError {
  if (error instanceof StorageError) return error;
  const f = grpcFailure(error);
  if (f === undefined) return new StorageError('Unavailable', `etcd ${what}: ${(error as Error)?.message ?? String(error)}`);
  if (/request is too large|larger than max/.test(f.details)) return new StorageError('TooLarge', `etcd refused the ${what}: ${f.details}`);
  if (f.code === GrpcStatus.DEADLINE_EXCEEDED) return new StorageError('Unavailable', `etcd ${what} timed out: ${f.details}`);
  return new StorageError('Unavailable', `etcd ${what}: ${f.details}`);
}

/**
 * A client of one etcd cluster over gRPC: one channel per member, requests to a current member and,
 * when that member fails, to the next one. Reads are retried on another member; writes only when
 * they certainly did not take effect (see CallOptions.write), so a write is never applied twice
 * behind the caller's back. Every request carries etcd's require-leader metadata, so that a member
 * cut off from its cluster refuses at once instead of waiting for a leader.
 */
export class EtcdClient {
  readonly endpoints: readonly EtcdEndpoint[];
  private readonly clients: Client[];
  private readonly requestTimeoutMs: number;
  private current: number;
  private closed = false;

  constructor(options: EtcdClientOptions) {
    this.endpoints = parseEtcdEndpoints(options.endpoints);
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.clients = this.endpoints.map(
      (endpoint) =>
        new Client(endpoint.target, channelCredentials(endpoint, options), {
          // Lists of many objects come back in one response.
          'grpc.max_receive_message_length': 2 ** 31 - 1,
          // A member that vanished without closing its connections (a partition) is noticed within
          // seconds; etcd refuses pings more often than every 5 s.
          'grpc.keepalive_time_ms': 10_000,
          'grpc.keepalive_timeout_ms': 5_000,
          'grpc.keepalive_permit_without_calls': 1,
          'grpc.initial_reconnect_backoff_ms': 100,
          'grpc.max_reconnect_backoff_ms': 2_000,
        }),
    );
    // Several API servers spread over the members rather than all loading the first.
    this.current = Math.floor(Math.random() * this.endpoints.length);
  }

  /** The member requests go to now. */
  get currentEndpoint(): EtcdEndpoint {
    return this.endpoints[this.current];
  }

  /** One request with failover; see the class comment for when it is sent again. */
  async call<Req, Res>(method: EtcdMethod<Req, Res>, request: Req, options: CallOptions = {}): Promise<Res> {
    const deadline = Date.now() + (options.timeoutMs ?? this.requestTimeoutMs);
    const attemptTimeout = options.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
    let lastError: Error | undefined;
    for (let attempt = 0; ; attempt++) {
      if (this.closed) throw StorageError.closed();
      // Out of time between attempts: the last member's answer says more than "deadline exceeded".
      if (lastError !== undefined && Date.now() >= deadline) throw lastError;
      const index = this.current;
      // A write waits for its answer however long it takes: cutting it short would not undo it.
      const attemptDeadline = options.write ? deadline : Math.min(deadline, Date.now() + attemptTimeout);
      try {
        return await this.unary(index, method, request, attemptDeadline);
      } catch (error) {
        if (this.closed) throw StorageError.closed();
        const f = grpcFailure(error);
        const retriable = f !== undefined && (options.write ? certainlyNotApplied(f) : memberTrouble(f));
        if (f !== undefined && memberTrouble(f)) this.failedOver(index);
        if (!retriable || Date.now() >= deadline) throw lastError !== undefined && f?.code === GrpcStatus.DEADLINE_EXCEEDED ? lastError : error;
        lastError = error as Error;
        // Once round every member without a pause; then back off a little.
        if (attempt + 1 >= this.endpoints.length) await sleep(Math.min(500, 50 * (attempt + 1)));
      }
    }
  }

  /** A watch stream on the current member. The caller reopens it (on the next member) when it fails. */
  openWatch(): { stream: ClientDuplexStream<WatchRequest, WatchResponse>; endpoint: EtcdEndpoint; index: number } {
    if (this.closed) throw StorageError.closed();
    const index = this.current;
    const stream = this.clients[index].makeBidiStreamRequest(ETCD.watch.path, ETCD.watch.request.serialize, ETCD.watch.response.deserialize, requireLeader());
    return { stream, endpoint: this.endpoints[index], index };
  }

  /** Moves on from a member that failed (unless another request did already). */
  failedOver(index: number): void {
    if (this.current === index) this.current = (index + 1) % this.endpoints.length;
  }

  /** A request to one named member, without failover (status, per-member health). */
  callMember<Req, Res>(index: number, method: EtcdMethod<Req, Res>, request: Req, timeoutMs: number): Promise<Res> {
    return this.unary(index, method, request, Date.now() + timeoutMs);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const client of this.clients) client.close();
  }

  private unary<Req, Res>(index: number, method: EtcdMethod<Req, Res>, request: Req, deadline: number): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      this.clients[index].makeUnaryRequest(
        method.path,
        method.request.serialize,
        method.response.deserialize,
        request,
        requireLeader(),
        { deadline },
        (error, response) => (error ? reject(error) : resolve(response as Res)),
      );
    });
  }
}

function requireLeader(): Metadata {
  const metadata = new Metadata();
  metadata.set(REQUIRE_LEADER, 'true');
  return metadata;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
