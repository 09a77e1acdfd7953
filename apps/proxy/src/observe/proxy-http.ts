import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProcessProfiler } from '@svc/machinery';
import type { ProxierHealth } from './proxier-health';
import type { ProxyMetrics } from './proxy-metrics';

const JSON_HEADERS = { 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff' };

async function listen(server: Server, host: string, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

async function close(server: Server | undefined): Promise<void> {
  if (!server) return;
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/**
 * `/healthz` and `/livez` as kube-proxy serves them on its health port (plain HTTP, for load
 * balancers and probes): 200 or 503 with `{"lastUpdated", "currentTime"[, "nodeEligible"]}`.
 */
export class HealthzServer {
  private server: Server | undefined;

  constructor(
    private readonly health: ProxierHealth,
    private readonly metrics: ProxyMetrics,
  ) {}

  async start(host: string, port: number): Promise<number> {
    this.server = createServer((req, res) => this.handle(req, res));
    return listen(this.server, host, port);
  }

  stop(): Promise<void> {
    return close(this.server);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== '/healthz' && path !== '/livez') {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('404 page not found\n');
      return;
    }
    const { healthy, lastUpdated, now } = this.health.status();
    const withNode = path === '/healthz';
    const ok = healthy && (!withNode || this.health.nodeEligible);
    (withNode ? this.metrics.healthz : this.metrics.livez).inc({ code: ok ? '200' : '503' });
    // As kube-proxy: while healthy, lastUpdated reads as now (older clients took it as the last sync loop).
    const body: Record<string, unknown> = { lastUpdated: new Date(ok ? now : lastUpdated).toISOString(), currentTime: new Date(now).toISOString() };
    if (withNode) body.nodeEligible = this.health.nodeEligible;
    res.writeHead(ok ? 200 : 503, JSON_HEADERS);
    res.end(JSON.stringify(body));
  }
}

/** `/metrics` (Prometheus text), `/healthz` (ok), `/proxyMode` and, with profiling, `/debug/pprof/`, as kube-proxy's metrics server. */
export class MetricsServer {
  private server: Server | undefined;
  private readonly profiler: ProcessProfiler | undefined;

  constructor(
    private readonly metrics: ProxyMetrics,
    private readonly mode: () => string,
    profiling: boolean,
  ) {
    this.profiler = profiling ? new ProcessProfiler() : undefined;
  }

  async start(host: string, port: number): Promise<number> {
    this.server = createServer((req, res) => void this.handle(req, res));
    return listen(this.server, host, port);
  }

  async stop(): Promise<void> {
    this.profiler?.close();
    await close(this.server);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    try {
      if (url.pathname === '/metrics') {
        const body = await this.metrics.registry.metrics();
        res.writeHead(200, { 'Content-Type': this.metrics.registry.contentType });
        res.end(body);
      } else if (url.pathname === '/healthz') {
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('ok');
      } else if (url.pathname === '/proxyMode') {
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end(this.mode());
      } else if (this.profiler && (url.pathname === '/debug/pprof' || url.pathname.startsWith('/debug/pprof/'))) {
        const answer = await this.profiler.answer(url.pathname, url.searchParams);
        res.writeHead(answer.status, { 'Content-Type': answer.contentType, 'X-Content-Type-Options': 'nosniff' });
        res.end(answer.body);
      } else {
        res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('404 page not found\n');
      }
    } catch (error) {
      res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(error instanceof Error ? error.message : 'internal error');
    }
  }
}
