import { ConsoleLogger, type DynamicModule, type INestApplication, type LoggerService, type LogLevel, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import express from 'express';
import type { Server } from 'node:https';
import { ServerResponse, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { tlsServerOptions } from '@svc/options';
import { ApiServerModule } from './api-server.module';
import { createAuditRuntime, type AuditOptions } from './audit/audit-runtime';
import type { ApiServerServingConfig } from './config';
import type { ComponentStatusDependencies } from './health/component-statuses';
import { composeChain, handlerChain } from './filters/handler-chain';
import { HealthRegistry } from './health/health-registry';
import { ServerLifecycle } from './lifecycle/server-lifecycle';
import { MetricsService } from './metrics/metrics.service';
import { markUpgrade, upgradeTaken } from './request/upgrade';
import { requestContext } from './request/request-context';
import { ResourcesRuntime } from './resources/resources-runtime';
import { clientHost, serverUrl, writeClientConnectionFile } from './serving/client-connection-file';
import { answerClientErrors, keepParsingBehindEndedResponses, refusePlainHttp } from './serving/connection-guards';
import { ensureServingCertificates, type ServingCertificates } from './serving/serving-certificates';
import { internalErrorStatus } from './status/status';
import { StatusExceptionFilter } from './status/status-exception.filter';
import { writeStatus } from './status/write-status';
import type { Security } from './auth/security';
import type { ResourceRegistries } from './resources/registries';
import { CONSOLE_PATH, ConsoleFiles } from './console/console-files';

export interface StartApiServerOptions {
  /** SIGTERM and SIGINT start the graceful stop, and the process exits when it is done (a second signal exits at once). */
  handleSignals?: boolean;
  /**
   * Where log lines go: a LoggerService, the levels to print, or false for none. By default the server's
   * own lines (serving, shutting down) and every warning and error are printed, but not Nest's start-up chatter.
   */
  logger?: LoggerService | LogLevel[] | false;
  /** Where the `Client connection file written to <path>` line goes; stdout by default. */
  stdout?: (line: string) => void;
  /** The `--audit-*` settings; audit is off without a policy and a backend. */
  audit?: AuditOptions;
  /** Authentication and authorization (see buildSecurity); without it every request is anonymous and allowed. */
  security?: Security;
  /** The registries, for handlers in front of the routes that read objects (TokenRequest). */
  registries?: ResourceRegistries;
  /** A client certificate and key for the written connection file (PEM), so that it authenticates. */
  clientCredentials?: { certPem: string; keyPem: string };
  /** What `componentstatuses` probes; the resource is not served without it. */
  componentStatuses?: ComponentStatusDependencies;
}

export interface ApiServerHandle {
  /** `https://<host>:<port>` as local clients reach it. */
  url: string;
  port: number;
  app: INestApplication;
  health: HealthRegistry;
  metrics: MetricsService;
  lifecycle: ServerLifecycle;
  certificates: ServingCertificates;
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
 * Starts the API server's HTTPS serving shell with the given extra Nest modules (resource handlers)
 * and resolves once it listens and the client connection file is written.
 */
export async function startApiServer(
  config: ApiServerServingConfig,
  extraModules: Array<DynamicModule | Type<unknown>> = [],
  options: StartApiServerOptions = {},
): Promise<ApiServerHandle> {
  const logger = serverLogger(options.logger);
  const certificates = await ensureServingCertificates(config);
  if (certificates.generated) logger.log(`Generated self-signed serving certificate in ${config.certDir}`);
  const tls = tlsServerOptions(config);

  const health = new HealthRegistry({ livezGracePeriodMs: config.livezGracePeriodMs });
  const metrics = new MetricsService();
  const lifecycle = new ServerLifecycle();
  const audit = createAuditRuntime(options.audit, (message) => {
    logger.warn(message);
  });
  // Runs after in-flight requests drained, so their last events are written before the files close.
  if (audit)
    lifecycle.onStopped(async () => {
      await audit.backend.shutdown();
    });

  const consoleFiles = ConsoleFiles.load(config.consoleDir);
  const expressApp = express();
  expressApp.disable('x-powered-by');
  expressApp.disable('etag');
  const chain = composeChain(
    handlerChain({
      config,
      metrics,
      lifecycle,
      audit,
      security: options.security,
      registries: options.registries,
      componentStatuses: options.componentStatuses,
      console: consoleFiles,
    }),
  );

  const app = await NestFactory.create(
    ApiServerModule.forRoot({ config, health, metrics, lifecycle }, extraModules.map(asDynamicModule)),
    new ExpressAdapter(expressApp),
    {
      httpsOptions: { key: certificates.keyPem, cert: certificates.certPem, ...tls, ...clientCertificateRequest(options.security) },
      // Handlers read bodies themselves with readBody and its limit; no parser buffers ahead of them.
      bodyParser: false,
      abortOnError: false,
      logger: options.logger ?? ['error', 'warn'],
    },
  );
  app.useGlobalFilters(new StatusExceptionFilter(logger));
  await app.init();
  const lastResort = (error: unknown, res: ServerResponse): void => {
    logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    writeStatus(res, internalErrorStatus('an error on the server has prevented the request from succeeding'));
  };
  // Last resort behind Nest's own error handling, for anything that escapes it.
  expressApp.use((error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => lastResort(error, res));

  // Every request runs the filters first, on Node's own request and response. Resource requests then
  // go straight to the resource handler: Express' and Nest's per-request machinery (router layers,
  // request and response decoration, middleware matching) cost more than serving a cached object.
  // Everything else (health, metrics, version, discovery, OpenAPI) is Nest's, through Express.
  const resources = resourcesRuntimeOf(app);
  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    const viaExpress = (): void => {
      expressApp(req as express.Request, res as express.Response);
    };
    const afterFilters = (error?: unknown): void => {
      if (error !== undefined) return lastResort(error, res);
      if (resources === undefined || !requestContext(req).info.isResourceRequest) return viaExpress();
      resources.router.handle(req, res, (failure?: unknown) => (failure === undefined ? viaExpress() : lastResort(failure, res)));
    };
    try {
      chain(req, res, afterFilters);
    } catch (error) {
      lastResort(error, res);
    }
  };

  const server = app.getHttpServer() as Server;
  server.removeAllListeners('request');
  server.on('request', serve);
  // Upgrade requests (exec, attach, port-forward) take the same way as every other request; a
  // handler that streams one takes the connection over (takeUpgrade), any other answer ends it.
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
  // A blank bind address lets Node pick all interfaces of every family it can.
  const listenHost = config.bindAddress === '' ? undefined : config.bindAddress.replace(/^\[|\]$/g, '');
  try {
    await listen(server, config.securePort, listenHost);
  } catch (error) {
    await app.close();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  const url = serverUrl(clientHost(config.bindAddress), port);

  let stopping: Promise<void> | undefined;
  const stop = (delayMs: number, drainTimeoutMs: number): Promise<void> => {
    stopping ??= (async () => {
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
      await app.close();
      for (const error of await lifecycle.runStoppedHooks()) logger.error(`stop hook failed: ${String(error)}`);
      lifecycle.advance('stopped');
    })();
    return stopping;
  };
  const drainLimitMs = (config.requestTimeoutMs > 0 ? config.requestTimeoutMs : 60_000) + DRAIN_SLACK_MS;

  const handle: ApiServerHandle = {
    url,
    port,
    app,
    health,
    metrics,
    lifecycle,
    certificates,
    clientConnectionFile: config.svcconfigOut || undefined,
    shutdown: () => {
      logger.log(`Shutting down: readyz fails now, listener closes in ${config.shutdownDelayDurationMs}ms`);
      return stop(config.shutdownDelayDurationMs, drainLimitMs);
    },
    close: () => stop(0, Math.min(drainLimitMs, 2_000)),
  };

  if (config.svcconfigOut) {
    try {
      await writeClientConnectionFile(config.svcconfigOut, url, certificates.caPem, options.clientCredentials);
    } catch (error) {
      // A server nobody was told how to reach is of no use; do not leave it running.
      await handle.close();
      throw error;
    }
    (options.stdout ?? ((line: string) => process.stdout.write(`${line}\n`)))(`Client connection file written to ${config.svcconfigOut}`);
  }
  if (options.handleSignals) installSignalHandlers(handle, logger);

  void health.runPostStartHooks().then((failed) => {
    for (const { name, error } of failed) logger.error(`post-start hook ${name} failed: ${String(error)}`);
  });
  logger.log(`Serving securely on ${config.bindAddress || '0.0.0.0'}:${port}`);
  if (consoleFiles) logger.log(`Serving the web console at ${url}${CONSOLE_PATH}`);
  return handle;
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

function asDynamicModule(module: DynamicModule | Type<unknown>): DynamicModule {
  return typeof module === 'function' ? { module } : module;
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

/** The resource layer, when the app hangs one on the shell. */
function resourcesRuntimeOf(app: INestApplication): ResourcesRuntime | undefined {
  try {
    return app.get(ResourcesRuntime, { strict: false });
  } catch {
    return undefined;
  }
}
