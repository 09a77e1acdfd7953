import { ConsoleLogger, Logger, type LoggerService, type LogLevel } from '@nestjs/common';
import { createServer, type Server } from 'node:https';
import { ServerResponse, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ProcessProfiler } from '@svc/machinery';
import { tlsServerOptions } from '@svc/options';
import { createAuditRuntime, type AuditOptions } from './audit/audit-runtime';
import { issuerDiscoveryRoutes } from './auth/issuer-discovery';
import type { Security } from './auth/security';
import type { ApiServerServingConfig } from './config';
import { profilingRoutes } from './debug/profiling-routes';
import { composeChain, handlerChain, type ChainHandler } from './filters/handler-chain';
import { HealthRegistry } from './health/health-registry';
import { healthRoutes } from './health/health-routes';
import { ServerLifecycle } from './lifecycle/server-lifecycle';
import { metricsRoute } from './metrics/metrics-route';
import { MetricsService } from './metrics/metrics.service';
import { markUpgrade, upgradeTaken } from './request/upgrade';
import { requestContext } from './request/request-context';
import { clientHost, serverUrl, writeClientConnectionFile } from './serving/client-connection-file';
import { answerClientErrors, keepParsingBehindEndedResponses, refusePlainHttp } from './serving/connection-guards';
import { Mux } from './serving/mux';
import { ResponseWriter } from './serving/response-writer';
import { ensureServingCertificates, type ServingCertificates } from './serving/serving-certificates';
import type { ServerPart, ServingCore } from './serving/serving-core';
import { CONSOLE_PATH, consoleRoutes, ConsoleFiles } from './console/console-files';
import { internalErrorStatus, isStatus, StatusError } from './status/status';
import { versionRoute } from './version/version-route';

export interface StartApiServerOptions {
  /** SIGTERM and SIGINT start the graceful stop, and the process exits when it is done (a second signal exits at once). */
  handleSignals?: boolean;
  /**
   * Where log lines go: a LoggerService, the levels to print, or false for none. By default the server's
   * own lines (serving, shutting down) and every warning and error are printed.
   */
  logger?: LoggerService | LogLevel[] | false;
  /** Where the `Client connection file written to <path>` line goes; stdout by default. */
  stdout?: (line: string) => void;
  /** The `--audit-*` settings; audit is off without a policy and a backend. */
  audit?: AuditOptions;
  /** Authentication and authorization (see buildSecurity); without it every request is anonymous and allowed. */
  security?: Security;
  /** A client certificate and key for the written connection file (PEM), so that it authenticates. */
  clientCredentials?: { certPem: string; keyPem: string };
  /** API Priority and Fairness, in place of the in-flight caps. */
  priorityAndFairness?: { filter(): ChainHandler };
}

export interface ApiServerHandle {
  /** `https://<host>:<port>` as local clients reach it. */
  url: string;
  port: number;
  health: HealthRegistry;
  metrics: MetricsService;
  lifecycle: ServerLifecycle;
  certificates: ServingCertificates;
  /** Every route the server serves; a path none of them names is a 404. */
  mux: Mux;
  /** Path of the client connection file, when one was written. */
  clientConnectionFile?: string;
  /**
   * The graceful stop SIGTERM triggers: readyz fails at once, the listener stays open for
   * `--shutdown-delay-duration`, then closes; in-flight requests drain; watches are ended last.
   */
  shutdown(): Promise<void>;
  /** Stops at once, without the shutdown delay (tests, fatal errors). */
  close(): Promise<void>;
}

// Watches get this long to end their streams once in-flight requests are drained.
const LONG_RUNNING_GRACE_MS = 1_000;
// A drain never waits longer than the slowest request may run, plus this.
const DRAIN_SLACK_MS = 5_000;

/**
 * Starts the API server's HTTPS serving shell with the given parts (the resource layer, discovery,
 * OpenAPI, ...) and resolves once it listens and the client connection file is written. Every request
 * runs the filters, then the one mux: the shell's own routes (health, metrics, version, profiling, the
 * service account issuer's documents) and the parts' routes.
 */
export async function startApiServer(
  config: ApiServerServingConfig,
  parts: readonly ServerPart[] = [],
  options: StartApiServerOptions = {},
): Promise<ApiServerHandle> {
  const logger = serverLogger(options.logger);
  // The parts log through Nest's Logger: what they print follows the server's setting (all of it off with false).
  Logger.overrideLogger(options.logger ?? ['error', 'warn']);
  const certificates = await ensureServingCertificates(config);
  if (certificates.generated) logger.log(`Generated self-signed serving certificate in ${config.certDir}`);
  const closers: Array<() => void | Promise<void>> = [];
  const server = createServer({
    key: certificates.keyPem,
    cert: certificates.certPem,
    ...tlsServerOptions(config),
    ...clientCertificateRequest(options.security),
  });
  const core: ServingCore = {
    config,
    health: new HealthRegistry({ livezGracePeriodMs: config.livezGracePeriodMs }),
    metrics: new MetricsService(),
    lifecycle: new ServerLifecycle(),
    logger,
    address: () => server.address() as AddressInfo,
    onClose: (hook) => closers.push(hook),
  };
  const mux = new Mux();
  for (const route of shellRoutes(core, options)) mux.handle(route);
  for (const part of parts) for (const route of part(core) ?? []) mux.handle(route);
  serveThrough(server, requestPipeline(core, mux, options));
  const port = await listenOrClose(server, config, core, closers);
  const handle = serverHandle(server, core, mux, certificates, closers, port);
  await announce(handle, config, certificates, options, logger);
  return handle;
}

/** The serving shell's own routes: health, metrics, version, profiling and the service account issuer's discovery. */
function shellRoutes(core: ServingCore, options: StartApiServerOptions) {
  const profiler = core.config.profiling ? new ProcessProfiler() : undefined;
  if (profiler) core.onClose(() => profiler.close());
  const tokens = options.security?.serviceAccountTokens;
  const consoleFiles = ConsoleFiles.load(core.config.consoleDir);
  return [
    ...healthRoutes(core.health),
    metricsRoute(core.metrics),
    versionRoute(core.config.version),
    ...profilingRoutes(profiler),
    ...(tokens ? issuerDiscoveryRoutes(tokens) : []),
    ...(consoleFiles ? consoleRoutes(consoleFiles) : []),
  ];
}

/** Every request: the filters, then the mux; anything that escapes either is answered 500. */
function requestPipeline(core: ServingCore, mux: Mux, options: StartApiServerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const audit = createAuditRuntime(options.audit, (message) => {
    core.logger.warn(message);
  });
  // Runs after in-flight requests drained, so their last events are written before the files close.
  if (audit) core.lifecycle.onStopped(() => audit.backend.shutdown());
  const chain: ChainHandler = composeChain(
    handlerChain({
      config: core.config,
      metrics: core.metrics,
      lifecycle: core.lifecycle,
      audit,
      security: options.security,
      servedToAnyone: (req) => mux.servesToAnyone(req),
      priorityAndFairness: options.priorityAndFairness,
    }),
  );
  // Last resort, for what a filter passes on or throws: logged, answered without a word of it.
  const lastResort = (res: ServerResponse, error: unknown): void => {
    core.logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    ResponseWriter.of(res).status(internalErrorStatus('an error on the server has prevented the request from succeeding'));
  };
  return (req, res) => {
    const afterFilters = (error?: unknown): void => {
      if (error !== undefined) return lastResort(res, error);
      mux.serve(req, ResponseWriter.of(res)).catch((failure: unknown) => answerFailure(req, ResponseWriter.of(res), failure, core.logger));
    };
    try {
      chain(req, res, afterFilters);
    } catch (error) {
      lastResort(res, error);
    }
  };
}

/**
 * The Status a route's failure is answered with: its own, or a 500 that says what failed without a
 * stack trace (Kubernetes' panic: audit records the Panic stage, the log has the rest).
 */
function answerFailure(req: IncomingMessage, res: ResponseWriter, error: unknown, logger: LoggerService): void {
  if (res.timedOut) return;
  if (error instanceof StatusError) return res.status(error.status);
  const carried = (error as { status?: unknown } | null)?.status;
  if (isStatus(carried)) return res.status(carried);
  requestContext(req).panicked = true;
  const message = error instanceof Error ? error.message : String(error);
  logger.error(`${req.method} ${req.url}: ${error instanceof Error ? (error.stack ?? message) : message}`);
  res.status(internalErrorStatus(message));
}

/**
 * Requests and upgrade requests (exec, attach, port-forward) take the same way: a handler that streams
 * an upgrade takes the connection over (takeUpgrade), any other answer ends it.
 */
function serveThrough(server: Server, serve: (req: IncomingMessage, res: ServerResponse) => void): void {
  server.on('request', serve);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const res = new ServerResponse(req);
    res.assignSocket(socket as Socket);
    markUpgrade(req, socket, head, res);
    res.on('finish', () => {
      if (!upgradeTaken(req)) socket.end();
    });
    socket.on('error', () => socket.destroy());
    serve(req, res);
  });
  refusePlainHttp(server);
  answerClientErrors(server);
  keepParsingBehindEndedResponses(server);
}

async function listenOrClose(
  server: Server,
  config: ApiServerServingConfig,
  core: ServingCore,
  closers: readonly (() => void | Promise<void>)[],
): Promise<number> {
  // A blank bind address lets Node pick all interfaces of every family it can.
  const host = config.bindAddress === '' ? undefined : config.bindAddress.replace(/^\[|\]$/g, '');
  try {
    await listen(server, config.securePort, host);
  } catch (error) {
    for (const close of closers) await close();
    await core.lifecycle.runStoppedHooks();
    throw error;
  }
  return (server.address() as AddressInfo).port;
}

/**
 * The handle and its stop sequence: readyz fails, the listener closes after the delay, in-flight
 * requests drain, watches get a grace to end, then the parts close and the onStopped hooks run.
 */
function serverHandle(
  server: Server,
  core: ServingCore,
  mux: Mux,
  certificates: ServingCertificates,
  closers: readonly (() => void | Promise<void>)[],
  port: number,
): ApiServerHandle {
  const { config, health, lifecycle, logger } = core;
  let stopping: Promise<void> | undefined;
  const stop = (delayMs: number, drainTimeoutMs: number): Promise<void> =>
    (stopping ??= (async () => {
      lifecycle.advance('shutdownInitiated');
      health.markShuttingDown();
      if (delayMs > 0) await sleep(delayMs);
      lifecycle.advance('notAcceptingNewRequests');
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await lifecycle.waitForIdle('drainable', drainTimeoutMs);
      lifecycle.advance('drained');
      await lifecycle.waitForIdle('longRunning', LONG_RUNNING_GRACE_MS);
      server.closeAllConnections();
      // A connection still in its TLS handshake is not an HTTP connection yet and would hold close() open.
      await Promise.race([closed, sleep(LONG_RUNNING_GRACE_MS, { unref: true })]);
      for (const close of closers) await close();
      for (const error of await lifecycle.runStoppedHooks()) logger.error(`stop hook failed: ${String(error)}`);
      lifecycle.advance('stopped');
    })());
  const drainLimitMs = (config.requestTimeoutMs > 0 ? config.requestTimeoutMs : 60_000) + DRAIN_SLACK_MS;
  return {
    url: serverUrl(clientHost(config.bindAddress), port),
    port,
    health,
    metrics: core.metrics,
    lifecycle,
    certificates,
    mux,
    clientConnectionFile: config.svcconfigOut || undefined,
    shutdown: () => {
      logger.log(`Shutting down: readyz fails now, listener closes in ${config.shutdownDelayDurationMs}ms`);
      return stop(config.shutdownDelayDurationMs, drainLimitMs);
    },
    close: () => stop(0, Math.min(drainLimitMs, 2_000)),
  };
}

/** Writes the client connection file, installs the signal handlers and runs the post-start hooks. */
async function announce(
  handle: ApiServerHandle,
  config: ApiServerServingConfig,
  certificates: ServingCertificates,
  options: StartApiServerOptions,
  logger: LoggerService,
): Promise<void> {
  if (config.svcconfigOut) {
    try {
      await writeClientConnectionFile(config.svcconfigOut, handle.url, certificates.caPem, options.clientCredentials);
    } catch (error) {
      // A server nobody was told how to reach is of no use; do not leave it running.
      await handle.close();
      throw error;
    }
    (options.stdout ?? ((line: string) => process.stdout.write(`${line}\n`)))(`Client connection file written to ${config.svcconfigOut}`);
  }
  if (options.handleSignals) installSignalHandlers(handle, logger);
  void handle.health.runPostStartHooks().then((failed) => {
    for (const { name, error } of failed) logger.error(`post-start hook ${name} failed: ${String(error)}`);
  });
  logger.log(`Serving securely on ${config.bindAddress || '0.0.0.0'}:${handle.port}`);
  if (handle.mux.match('GET', CONSOLE_PATH)) logger.log(`Serving the web console at ${handle.url}${CONSOLE_PATH}`);
}

/**
 * With a client CA, the TLS server asks for a client certificate (naming the CA) without requiring
 * one; the x509 authenticator verifies what was presented, so a bad certificate is a 401, not a
 * failed handshake.
 */
function clientCertificateRequest(security: Security | undefined): { requestCert?: boolean; rejectUnauthorized?: boolean; ca?: string } {
  if (security?.clientCaPem === undefined) return {};
  return { requestCert: true, rejectUnauthorized: false, ca: security.clientCaPem };
}

function listen(server: Server, port: number, host: string | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

function sleep(ms: number, options: { unref?: boolean } = {}): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    if (options.unref) timer.unref();
  });
}

function serverLogger(setting: LoggerService | LogLevel[] | false | undefined): LoggerService {
  if (setting === false) return { log: () => undefined, warn: () => undefined, error: () => undefined };
  if (setting !== undefined && !Array.isArray(setting)) return setting;
  return new ConsoleLogger('ApiServer', { logLevels: setting ?? ['log', 'warn', 'error', 'fatal'] });
}

function installSignalHandlers(handle: ApiServerHandle, logger: LoggerService): void {
  let received = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (received) {
      logger.warn(`Received ${signal} again, exiting without waiting`);
      process.exit(1);
    }
    received = true;
    logger.log(`Received ${signal}`);
    handle.shutdown().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error(`Shutdown failed: ${String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
