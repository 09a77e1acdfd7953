import { errorMessage, ProcessProfiler } from '@svc/machinery';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { TlsServerOptions } from '@svc/options';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { isPathAllowed, type DelegatedAuth } from '@svc/delegated-auth';

export { isPathAllowed };

/** A named check; it fails by returning a reason or throwing. */
export type ProbeCheck = () => string | undefined | Promise<string | undefined>;

export interface HealthServerOptions {
  port: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /** Serve HTTPS with this PEM pair, and the protocol floor and suites of `--tls-min-version`/`--tls-cipher-suites`. */
  tls?: { cert: string; key: string } & TlsServerOptions;
  registry: Registry;
  healthz: Record<string, ProbeCheck>;
  readyz: Record<string, ProbeCheck>;
  /**
   * When set, only these paths are served and every other request is refused with 403, as
   * Kubernetes' components do without an authorizer (`--authorization-always-allow-paths`): an
   * entry ending in `*` matches by prefix, any other exactly. Unset: every path is served.
   */
  alwaysAllowPaths?: readonly string[];
  /**
   * Who may call, as Kubernetes' components decide it (TokenReview, SubjectAccessReview, always
   * allowed paths); takes the place of `alwaysAllowPaths` when set. Refusals are Status bodies.
   */
  auth?: DelegatedAuth;
  /** Serve `/debug/pprof/` (CPU and heap profiles in pprof's format), as `--profiling` asks. */
  profiling?: boolean;
}

/**
 * `/healthz` (also as `/livez`), `/readyz` (each with `?verbose` listing its checks, and `/<probe>/<check>` for one)
 * and `/metrics` in the Prometheus text format.
 */
export class HealthServer {
  private server: Server | undefined;
  private readonly profiler: ProcessProfiler | undefined;

  constructor(private readonly options: HealthServerOptions) {
    this.profiler = options.profiling ? new ProcessProfiler() : undefined;
  }

  async start(): Promise<number> {
    const handler = (req: IncomingMessage, res: ServerResponse) => void this.handle(req, res);
    // Client certificates are asked for, naming the CAs that are read, when the endpoint reads them;
    // one that does not verify is refused by the authenticator (401), not by the handshake.
    const authorities = this.options.auth?.clientCertificateAuthorities;
    const tls =
      this.options.tls && authorities
        ? { ...this.options.tls, requestCert: true, rejectUnauthorized: false, ca: authorities.map((c) => c.toString()) }
        : this.options.tls;
    const server = tls ? createHttpsServer(tls, handler) : createHttpServer(handler);
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, this.options.host ?? '127.0.0.1', () => resolve());
    });
    return (server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.profiler?.close();
    if (!server) return;
    this.server = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    try {
      const allowed = this.options.alwaysAllowPaths;
      if (this.options.auth) {
        const decision = await this.options.auth.check(req, url.pathname);
        if (!decision.allowed) {
          const status = {
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Failure',
            message: decision.message,
            reason: decision.reason,
            details: {},
            code: decision.code,
          };
          res.writeHead(decision.code, { 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff' });
          res.end(`${JSON.stringify(status)}\n`);
          return;
        }
      } else if (allowed && !isPathAllowed(url.pathname, allowed)) {
        res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
        res.end(`forbidden: User "system:anonymous" cannot get path "${url.pathname}"\n`);
        return;
      }
      if (this.profiler && (url.pathname === '/debug/pprof' || url.pathname.startsWith('/debug/pprof/'))) {
        const answer = await this.profiler.answer(url.pathname, url.searchParams);
        res.writeHead(answer.status, { 'Content-Type': answer.contentType, 'X-Content-Type-Options': 'nosniff' });
        res.end(answer.body);
        return;
      }
      if (url.pathname === '/metrics') {
        const body = await this.options.registry.metrics();
        res.writeHead(200, { 'Content-Type': this.options.registry.contentType });
        res.end(body);
        return;
      }
      const [, probe, only] = url.pathname.split('/');
      const checks = probe === 'healthz' || probe === 'livez' ? this.options.healthz : probe === 'readyz' ? this.options.readyz : undefined;
      if (!checks || (only !== undefined && !(only in checks))) {
        res.writeHead(404, { 'Content-Type': 'text/plain' });
        res.end('404 page not found\n');
        return;
      }
      const names = only !== undefined ? [only] : Object.keys(checks);
      const lines: string[] = [];
      let failed = false;
      for (const name of names) {
        let reason: string | undefined;
        try {
          reason = await checks[name]();
        } catch (error) {
          reason = errorMessage(error);
        }
        if (reason !== undefined) failed = true;
        lines.push(reason === undefined ? `[+]${name} ok` : `[-]${name} failed: ${reason}`);
      }
      const verbose = url.searchParams.has('verbose');
      const body = failed || verbose ? `${lines.join('\n')}\n${probe} check ${failed ? 'failed' : 'passed'}\n` : 'ok';
      res.writeHead(failed ? 500 : 200, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
      res.end(body);
    } catch (error) {
      res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end(error instanceof Error ? error.message : 'internal error');
    }
  }
}
