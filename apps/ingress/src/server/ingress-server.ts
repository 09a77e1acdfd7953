import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { createSecureContext } from 'node:tls';
import { createProxyServer } from 'http-proxy-3';
import type { IngressView, Endpoint } from '../cluster/ingress-view';
import { requestHost, RouteTable, type RouteTarget } from '../routes/route-table';
import { TlsCertificates } from './tls-certificates';

export interface IngressServerOptions {
  view: IngressView;
  /** The most bytes of a request's head; node answers 431 beyond it. */
  maxHeaderSize: number;
  /** How long a proxied request waits for its endpoint's answer (504 after). */
  upstreamTimeoutMs: number;
  /** How long a whole request may take, body included (node answers 408 after). */
  requestTimeoutMs: number;
  /** The certificate for server names no Ingress has one for. */
  defaultCertificate: { cert: string; key: string };
  log: (line: string) => void;
}

/** Where the servers listen once started. */
export interface Listening {
  http: AddressInfo;
  https?: AddressInfo;
}

function endpointUrl(endpoint: Endpoint): string {
  const host = endpoint.address.includes(':') ? `[${endpoint.address}]` : endpoint.address;
  return `http://${host}:${endpoint.port}`;
}

/** A plain-text answer of the controller's own (no rule, no endpoint, an upstream that failed). */
function answer(res: ServerResponse, code: number, text: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(code, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
  res.end(`${text}\n`);
}

/**
 * The ingress controller's HTTP and HTTPS servers: each request's host and path are matched against the
 * served Ingresses' routes, and the request is proxied (streamed both ways, upgrades too) with
 * http-proxy-3 to a ready endpoint of the matched Service, round robin. No rule: 404; a rule whose
 * Service has no ready endpoint (or a resource backend): 503; an endpoint that fails: 502, or 504 when
 * it does not answer in time. The route table and certificates are rebuilt when the informers changed.
 */
export class IngressServer {
  private readonly proxy = createProxyServer({ xfwd: true, ws: true });
  private routes = new RouteTable([]);
  private certificates: TlsCertificates;
  private builtAt = -1;
  private readonly turns = new Map<string, number>();
  private readonly servers: Server[] = [];
  private readonly sockets = new Set<Socket>();

  constructor(private readonly options: IngressServerOptions) {
    this.certificates = new TlsCertificates([], () => undefined, createSecureContext(options.defaultCertificate), options.log);
  }

  private refresh(): void {
    const { view } = this.options;
    if (view.version === this.builtAt) return;
    this.builtAt = view.version;
    const served = view.servedIngresses();
    this.routes = new RouteTable(served);
    this.certificates = new TlsCertificates(served, (ns, name) => view.secret(ns, name), this.certificates.fallback, this.options.log);
  }

  /** The endpoint a request for `target` goes to, or the status and text to answer with instead. */
  private pick(target: RouteTarget | undefined, host: string, path: string): { endpoint: Endpoint } | { code: number; text: string } {
    if (target === undefined) return { code: 404, text: `404 Not Found: no Ingress rule matches ${host || '<no host>'}${path}` };
    if (target.kind === 'unsupported') return { code: 503, text: `503 Service Unavailable: ${target.reason} (ingress ${target.ingress})` };
    const resolved = this.options.view.resolve(target.backend);
    if (resolved.endpoints.length === 0) {
      return { code: 503, text: `503 Service Unavailable: ${'reason' in resolved ? resolved.reason : 'no endpoints'} (ingress ${target.ingress})` };
    }
    const key = `${target.backend.namespace}/${target.backend.service}:${target.backend.port.name ?? target.backend.port.number}`;
    const turn = this.turns.get(key) ?? 0;
    this.turns.set(key, turn + 1);
    return { endpoint: resolved.endpoints[turn % resolved.endpoints.length] };
  }

  private route(req: IncomingMessage): ReturnType<IngressServer['pick']> {
    this.refresh();
    const host = requestHost(req.headers.host);
    const url = req.url ?? '/';
    // An absolute-form request target (`GET http://host/path`) names its path after the authority.
    const path = (url.startsWith('/') ? url : (/^[a-z]+:\/\/[^/]*(\/[^?#]*)?/i.exec(url)?.[1] ?? '/')).split('?')[0].split('#')[0] || '/';
    return this.pick(this.routes.match(host, path).target, host, path);
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const picked = this.route(req);
    if (!('endpoint' in picked)) {
      answer(res, picked.code, picked.text);
      return;
    }
    const target = endpointUrl(picked.endpoint);
    this.proxy.web(req, res, { target, proxyTimeout: this.options.upstreamTimeoutMs }, (error) => {
      const timedOut = (error as NodeJS.ErrnoException).code === 'ECONNRESET' && !req.destroyed && res.writable;
      this.options.log(`${req.method} ${requestHost(req.headers.host)}${req.url} -> ${target}: ${error.message}`);
      answer(res, timedOut ? 504 : 502, timedOut ? `504 Gateway Timeout: ${target} did not answer in time` : `502 Bad Gateway: ${target}: ${error.message}`);
    });
  }

  private onUpgrade(req: IncomingMessage, socket: Socket, head: Buffer): void {
    const picked = this.route(req);
    if (!('endpoint' in picked)) {
      socket.end(`HTTP/1.1 ${picked.code} ${picked.code === 404 ? 'Not Found' : 'Service Unavailable'}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    this.proxy.ws(req, socket, head, { target: endpointUrl(picked.endpoint) }, () => socket.destroy());
  }

  private serve(server: Server): Server {
    server.on('request', (req, res) => this.onRequest(req, res));
    server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => this.onUpgrade(req, socket, head));
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    this.servers.push(server);
    return server;
  }

  private listen(server: Server, host: string, port: number): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve(server.address() as AddressInfo);
      });
    });
  }

  /** Opens HTTP on `httpPort` and, unless `httpsPort` is -1, HTTPS on `httpsPort`. */
  async start(host: string, httpPort: number, httpsPort: number): Promise<Listening> {
    const bounds = {
      maxHeaderSize: this.options.maxHeaderSize,
      requestTimeout: this.options.requestTimeoutMs,
      headersTimeout: Math.min(60_000, this.options.requestTimeoutMs),
    };
    const http = await this.listen(this.serve(createHttpServer(bounds)), host, httpPort);
    if (httpsPort < 0) return { http };
    const tls = createHttpsServer({
      ...bounds,
      ...this.options.defaultCertificate,
      SNICallback: (name, done) => {
        this.refresh();
        done(null, this.certificates.contextFor(name));
      },
    });
    const https = await this.listen(this.serve(tls), host, httpsPort);
    return { http, https };
  }

  async stop(): Promise<void> {
    const closed = Promise.all(this.servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }
}
