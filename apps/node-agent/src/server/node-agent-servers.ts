import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import type { Client } from '@svc/client';
import { errorMessage, ProcessProfiler } from '@svc/machinery';
import { tlsServerOptions, type TlsVersionName } from '@svc/options';
import type { DelegatedAuth } from '@svc/delegated-auth';
import type { NodeAgentConfiguration } from '../config/node-agent-configuration';
import type { NodeAgent } from '../node-agent';
import { NodeAgentHandlers } from './node-agent-handlers';
import { nodeAgentAuth } from './node-auth';
import { servingPair } from './serving-pair';
import type { ServingCertificateManager } from '../identity/serving-identity';
import { rejectUpgrade } from './upgrade-refusal';

export interface ServerSettings {
  certDir: string;
  nodeName: string;
  nodeIPs: readonly string[];
  log: (message: string) => void;
  /** serverTLSBootstrap: serving certificates from the certificates API, used from the moment each is issued. */
  servingCertificates?: ServingCertificateManager;
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

function closer(server: HttpServer | HttpsServer): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
}

function pathOf(req: IncomingMessage): string {
  return new URL(req.url ?? '/', 'https://node').pathname;
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
  if (config.enableServer ?? true) {
    const { server, close } = await secureServer(handlers, client, config, settings);
    result.port = await listen(server, config.port ?? 10250, config.address ?? '0.0.0.0');
    closers.push(close);
  }
  if ((config.healthzPort ?? 10248) > 0) {
    const health = createHttpServer((req, res) => {
      if (pathOf(req) === '/healthz') return handlers.healthz(res);
      res.writeHead(404).end('404 page not found\n');
    });
    result.healthzPort = await listen(health, config.healthzPort ?? 10248, config.healthzBindAddress ?? '127.0.0.1');
    closers.push(closer(health));
  }
  return result;
}

/** The secured server: every request and upgrade authenticated and authorized, then routed; `/healthz` open to all. */
async function secureServer(
  handlers: NodeAgentHandlers,
  client: Client,
  config: NodeAgentConfiguration,
  settings: ServerSettings,
): Promise<{ server: HttpsServer; close: () => Promise<void> }> {
  const pair =
    (await settings.servingCertificates?.stored()) ??
    (await servingPair(settings.certDir, config.tlsCertFile ?? '', config.tlsPrivateKeyFile ?? '', settings.nodeName, settings.nodeIPs));
  const clientCAFile = config.authentication?.x509?.clientCAFile;
  const clientCA = clientCAFile ? readFileSync(clientCAFile, 'utf8') : undefined;
  const auth = nodeAgentAuth(client, config, settings.nodeName, clientCA);
  const context = {
    ca: clientCA,
    minVersion: 'TLSv1.2' as const,
    // The file's names were checked when it was read (Go's names, mapped to OpenSSL's here).
    ...tlsServerOptions({ tlsMinVersion: config.tlsMinVersion as TlsVersionName | undefined, tlsCipherSuites: config.tlsCipherSuites }),
  };
  const server = createHttpsServer({ ...context, cert: pair.cert, key: pair.key, requestCert: clientCA !== undefined, rejectUnauthorized: false });
  // A serving certificate issued later serves every new connection from then on.
  settings.servingCertificates?.onCertificate((issued) => server.setSecureContext({ ...context, cert: issued.cert, key: issued.key }));
  // `/debug/pprof/` (enableProfilingHandler, on by default as in the kubelet), authorized as nodes/proxy.
  const profiler = (config.enableProfilingHandler ?? true) ? new ProcessProfiler() : undefined;
  server.on('request', (req: IncomingMessage, res: ServerResponse) => void serveRequest(handlers, auth, profiler, req, res));
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => void serveUpgrade(handlers, auth, req, socket, head));
  const close = closer(server);
  return {
    server,
    close: async () => {
      await close();
      profiler?.close();
    },
  };
}

/** Whether the request may go on; when not, `refuse` has answered it. */
async function admitted(auth: DelegatedAuth, req: IncomingMessage, refuse: (code: number, message: string) => void): Promise<boolean> {
  const path = pathOf(req);
  if (path === '/healthz') return true;
  const decision = await auth.check(req, path);
  if (!decision.allowed) refuse(decision.code, decision.message);
  return decision.allowed;
}

async function serveRequest(
  handlers: NodeAgentHandlers,
  auth: DelegatedAuth,
  profiler: ProcessProfiler | undefined,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  try {
    if (!(await admitted(auth, req, (code, message) => handlers.fail(res, code, message)))) return;
    if (profiler && /^\/debug\/pprof(\/|$)/.test(pathOf(req))) return await serveProfile(profiler, req, res);
    await handlers.handle(req, res);
  } catch (error) {
    handlers.fail(res, 500, errorMessage(error));
  }
}

async function serveUpgrade(handlers: NodeAgentHandlers, auth: DelegatedAuth, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
  try {
    if (!(await admitted(auth, req, (code, message) => rejectUpgrade(socket, code, message)))) return;
    await handlers.upgrade(req, socket, head);
  } catch (error) {
    rejectUpgrade(socket, 500, errorMessage(error));
  }
}

async function serveProfile(profiler: ProcessProfiler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'https://node');
  const answer = await profiler.answer(url.pathname, url.searchParams);
  res.writeHead(answer.status, { 'Content-Type': answer.contentType, 'X-Content-Type-Options': 'nosniff' });
  res.end(answer.body);
}
