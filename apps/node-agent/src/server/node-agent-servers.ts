import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import type { Client } from '@svc/client';
import { errorMessage, parseCertificateBundle, ProcessProfiler } from '@svc/machinery';
import { parseDuration, tlsServerOptions, type TlsVersionName } from '@svc/options';
import { DelegatedAuth } from '@svc/delegated-auth';
import type { NodeAgentConfiguration } from '../config/node-agent-configuration';
import type { NodeAgent } from '../node-agent';
import { NodeAgentHandlers } from './node-agent-handlers';
import { nodeAccess } from './node-access';
import { servingPair } from './serving-pair';

export interface ServerSettings {
  certDir: string;
  nodeName: string;
  nodeIPs: readonly string[];
  log: (message: string) => void;
}

export interface NodeAgentServers {
  /** The secured server's port, when it runs. */
  port?: number;
  healthzPort?: number;
  close(): Promise<void>;
}

function listen(server: HttpServer | HttpsServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

/**
 * The node agent's HTTPS server (`port`: logs, exec, attach, port-forward, pods, metrics), with
 * spec 3's authentication and authorization, and the plain health server on `healthzPort`.
 */
export async function startNodeAgentServers(
  agent: NodeAgent,
  client: Client,
  config: NodeAgentConfiguration,
  settings: ServerSettings,
): Promise<NodeAgentServers> {
  const handlers = new NodeAgentHandlers(agent, config, settings.log);
  const closers: Array<() => Promise<void>> = [];
  const result: NodeAgentServers = {
    close: async () => {
      for (const close of closers) await close();
    },
  };
  const closeServer = (server: HttpServer | HttpsServer) => () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  if (config.enableServer ?? true) {
    const pair = await servingPair(settings.certDir, config.tlsCertFile ?? '', config.tlsPrivateKeyFile ?? '', settings.nodeName, settings.nodeIPs);
    const authn = config.authentication ?? {};
    const authz = config.authorization ?? {};
    const clientCA = authn.x509?.clientCAFile ? readFileSync(authn.x509.clientCAFile, 'utf8') : undefined;
    const auth = new DelegatedAuth({
      clientCertificateAuthorities: clientCA !== undefined ? parseCertificateBundle(clientCA, authn.x509?.clientCAFile ?? '') : undefined,
      tokenReview: (authn.webhook?.enabled ?? true) ? { client, cacheTtlMs: parseDuration(authn.webhook?.cacheTTL ?? '2m') } : undefined,
      anonymous: authn.anonymous?.enabled ?? false,
      authorization:
        (authz.mode ?? 'Webhook') === 'AlwaysAllow'
          ? 'AlwaysAllow'
          : {
              client,
              allowedTtlMs: parseDuration(authz.webhook?.cacheAuthorizedTTL ?? '5m'),
              deniedTtlMs: parseDuration(authz.webhook?.cacheUnauthorizedTTL ?? '30s'),
            },
      alwaysAllowPaths: [],
      access: nodeAccess(settings.nodeName),
    });
    const server = createHttpsServer({
      cert: pair.cert,
      key: pair.key,
      ca: clientCA,
      requestCert: clientCA !== undefined,
      rejectUnauthorized: false,
      minVersion: 'TLSv1.2',
      // The file's names were checked when it was read (Go's names, mapped to OpenSSL's here).
      ...tlsServerOptions({ tlsMinVersion: config.tlsMinVersion as TlsVersionName | undefined, tlsCipherSuites: config.tlsCipherSuites }),
    });
    const guarded = async (req: IncomingMessage, reject: (code: number, message: string) => void): Promise<boolean> => {
      const path = new URL(req.url ?? '/', 'https://node').pathname;
      if (path === '/healthz') return true;
      const decision = await auth.check(req, path);
      if (!decision.allowed) reject(decision.code, decision.message);
      return decision.allowed;
    };
    // `/debug/pprof/` (enableProfilingHandler, on by default as in the kubelet), authorized as nodes/proxy.
    const profiler = (config.enableProfilingHandler ?? true) ? new ProcessProfiler() : undefined;
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      void (async () => {
        try {
          if (!(await guarded(req, (code, message) => handlers.fail(res, code, message)))) return;
          if (profiler && /^\/debug\/pprof(\/|$)/.test(new URL(req.url ?? '/', 'https://node').pathname)) return await serveProfile(profiler, req, res);
          await handlers.handle(req, res);
        } catch (error) {
          handlers.fail(res, 500, errorMessage(error));
        }
      })();
    });
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      void (async () => {
        try {
          if (!(await guarded(req, (code, message) => rejectUpgrade(socket, code, message)))) return;
          await handlers.upgrade(req, socket, head);
        } catch (error) {
          rejectUpgrade(socket, 500, errorMessage(error));
        }
      })();
    });
    result.port = await listen(server, config.port ?? 10250, config.address ?? '0.0.0.0');
    closers.push(closeServer(server));
    if (profiler) closers.push(async () => profiler.close());
  }
  if ((config.healthzPort ?? 10248) > 0) {
    const health = createHttpServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://node').pathname;
      if (path === '/healthz') return handlers.healthz(res);
      res.writeHead(404).end('404 page not found\n');
    });
    result.healthzPort = await listen(health, config.healthzPort ?? 10248, config.healthzBindAddress ?? '127.0.0.1');
    closers.push(closeServer(health));
  }
  return result;
}

async function serveProfile(profiler: ProcessProfiler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'https://node');
  const answer = await profiler.answer(url.pathname, url.searchParams);
  res.writeHead(answer.status, { 'Content-Type': answer.contentType, 'X-Content-Type-Options': 'nosniff' });
  res.end(answer.body);
}

export function rejectUpgrade(socket: Duplex, code: number, message: string): void {
  const reason =
    code === 401 ? 'Unauthorized' : code === 403 ? 'Forbidden' : code === 404 ? 'Not Found' : code === 400 ? 'Bad Request' : 'Internal Server Error';
  const body = `${message}\n`;
  socket.end(
    `HTTP/1.1 ${code} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
