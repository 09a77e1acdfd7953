import { readFileSync } from 'node:fs';
import { createServer, Agent as HttpsAgent } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Node } from '@svc/api';
import { BUILTIN_RESOURCES, Client, clientConfigFromOptions, type ClientConfig, type PartialObjectMetadata } from '@svc/client';
import { delegatedAuthFromFlags, type DelegatedAuth } from '@svc/delegated-auth';
import { listerWatcherFor, SharedInformer, silentInformerLogger } from '@svc/informers';
import { errorMessage } from '@svc/machinery';
import { parseMetricsServerOptions, parseOrExit, tlsServerOptions, type MetricsServerOptions } from '@svc/options';
import { exitOnSignals, servingPair } from '@svc/runtime';
import { Histogram, Registry, Gauge, collectDefaultMetrics } from 'prom-client';
import { METRICS_ACCESS, MetricsApi, writeStatus, type MetaOnly } from './api/metrics-api';
import { NodeScraper } from './scrape/node-scraper';
import { ScrapeLoop } from './scrape/scrape-loop';
import { MetricsStorage } from './storage/metrics-storage';

const PROGRAM = 'svc-metrics-server';
/** How often the published client and front proxy CAs are read again. */
const AUTHENTICATION_RELOAD_MS = 60_000;

function log(line: string): void {
  process.stderr.write(`${new Date().toISOString()} ${line}\n`);
}

/**
 * TLS towards the node agents, as metrics-server builds it from its client configuration: the
 * agents' CA (`--kubelet-certificate-authority`, else the API server's), or no verification with
 * `--kubelet-insecure-tls`; the client certificate of `--kubelet-client-certificate`, else the
 * connection's own credential (its certificate or bearer token).
 */
function nodeAgentTls(o: MetricsServerOptions, config: ClientConfig): { agent: HttpsAgent; token?: () => Promise<string | undefined> } {
  const read = (file: string, flag: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      throw new Error(`--${flag}: ${errorMessage(error)}`);
    }
  };
  const ca = o.kubeletCertificateAuthority ? read(o.kubeletCertificateAuthority, 'kubelet-certificate-authority') : config.ca;
  const cert = o.kubeletClientCertificate ? read(o.kubeletClientCertificate, 'kubelet-client-certificate') : config.clientCert;
  const key = o.kubeletClientKey ? read(o.kubeletClientKey, 'kubelet-client-key') : config.clientKey;
  const agent = new HttpsAgent({ keepAlive: true, ca: o.kubeletInsecureTls ? undefined : ca, rejectUnauthorized: !o.kubeletInsecureTls, cert, key });
  const token = o.kubeletClientCertificate
    ? undefined
    : async () => {
        if (config.tokenSource) return config.tokenSource();
        if (config.token) return config.token;
        if (config.tokenFile) return readFileSync(config.tokenFile, 'utf8').trim();
        return undefined;
      };
  return { agent, token };
}

interface Served {
  port: number;
  /** Takes up the authenticator's CAs for the certificates asked of new connections. */
  reloadClientCertificates(): void;
  close(): Promise<void>;
}

/** The TLS settings that ask for client certificates by the CAs the authenticator reads (none: none asked for). */
function clientCertificateOptions(auth: DelegatedAuth): { requestCert: boolean; rejectUnauthorized: boolean; ca?: string[] } {
  const authorities = auth.clientCertificateAuthorities;
  // One that does not verify is refused by the authenticator (401), not by the handshake.
  return authorities
    ? { requestCert: true, rejectUnauthorized: false, ca: authorities.map((c) => c.toString()) }
    : { requestCert: false, rejectUnauthorized: false };
}

async function serve(o: MetricsServerOptions, current: () => DelegatedAuth, api: MetricsApi, storage: MetricsStorage, registry: Registry): Promise<Served> {
  const pair = await servingPair(o, PROGRAM);
  const server = createServer({ ...pair, ...tlsServerOptions(o), ...clientCertificateOptions(current()) });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) writeStatus(res, 500, 'InternalError', `Internal error occurred: ${errorMessage(error)}`);
      else res.destroy();
    });
  });
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'https://metrics').pathname;
    const decision = await current().check(req, path);
    if (!decision.allowed) {
      const details = decision.code === 403 ? {} : undefined;
      return writeStatus(res, decision.code, decision.reason, decision.message, details);
    }
    if (path === '/healthz' || path === '/livez') return plain(res, 200, 'ok');
    if (path === '/readyz')
      return storage.ready ? plain(res, 200, 'ok') : plain(res, 500, '[-]metric-storage-ready failed: not metrics to serve\nreadyz check failed\n');
    if (path === '/metrics') {
      res.writeHead(200, { 'Content-Type': registry.contentType }).end(await registry.metrics());
      return;
    }
    if (path === '/version') {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ major: '1', minor: '32', gitVersion: 'v1.32.0-svc' }));
      return;
    }
    api.serve(req, res);
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.securePort, o.bindAddress || '0.0.0.0', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    reloadClientCertificates: () => server.setSecureContext({ ...pair, ...tlsServerOptions(o), ...clientCertificateOptions(current()) }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function plain(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' }).end(text);
}

async function main(): Promise<void> {
  const o = parseOrExit(parseMetricsServerOptions, process.argv.slice(2));
  const config = await clientConfigFromOptions(o);
  const client = new Client(config);
  // As metrics-server: reviews and the front proxy's settings go through its own connection unless named apart.
  const authFlags = {
    ...o,
    authenticationSvcconfig: o.authenticationSvcconfig ?? o.svcconfig,
    authorizationSvcconfig: o.authorizationSvcconfig ?? o.svcconfig,
    access: METRICS_ACCESS,
  };
  let auth = await delegatedAuthFromFlags(authFlags, log);
  const nodeInformer = new SharedInformer<Node>(listerWatcherFor(client.resource(BUILTIN_RESOURCES.nodes), { labelSelector: o.nodeSelector || undefined }), {
    logger: silentInformerLogger,
    name: 'nodes',
  });
  const podInformer = new SharedInformer<PartialObjectMetadata>(listerWatcherFor(client.pods.metadataOnly()), {
    logger: silentInformerLogger,
    name: 'pods',
  });
  const storage = new MetricsStorage(o.metricResolution);
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requestDuration = new Histogram({
    name: 'metrics_server_kubelet_request_duration_seconds',
    help: 'Duration of requests to Kubelet API in seconds',
    labelNames: ['node'],
    registers: [registry],
  });
  const scrapeTotal = new Gauge({
    name: 'metrics_server_kubelet_last_request_failed',
    help: '1 when the last scrape of the node failed, 0 otherwise',
    labelNames: ['node'],
    registers: [registry],
  });
  const tls = nodeAgentTls(o, config);
  const scraper = new NodeScraper({
    port: o.kubeletPort,
    useNodeStatusPort: o.kubeletUseNodeStatusPort ?? false,
    addressTypes: o.kubeletPreferredAddressTypes,
    timeoutMs: o.kubeletRequestTimeout,
    agent: tls.agent,
    token: tls.token,
  });
  const loop = new ScrapeLoop(scraper, storage, {
    resolutionMs: o.metricResolution,
    nodes: () => nodeInformer.lister().list(),
    log,
    onScrape: (node, seconds, failed) => {
      requestDuration.observe({ node }, seconds);
      scrapeTotal.set({ node }, failed ? 1 : 0);
    },
  });
  const source = {
    nodes: () => nodeInformer.lister().list() as MetaOnly[],
    node: (name: string) => nodeInformer.lister().get(name),
    pods: (namespace?: string) => (namespace !== undefined ? podInformer.lister().namespace(namespace).list() : podInformer.lister().list()) as MetaOnly[],
    pod: (namespace: string, name: string) => podInformer.lister().namespace(namespace).get(name),
    nodeUsage: (name: string) => storage.nodeUsage(name),
    podUsage: (namespace: string, name: string) => storage.podUsage(namespace, name),
  };
  nodeInformer.start();
  podInformer.start();
  if (!(await nodeInformer.whenSynced(60_000)) || !(await podInformer.whenSynced(60_000)))
    throw new Error(`the nodes and pods could not be listed: ${(nodeInformer.lastError ?? podInformer.lastError)?.message ?? 'timed out'}`);
  const served = await serve(o, () => auth, new MetricsApi(source), storage, registry);
  loop.start();
  // As Kubernetes' dynamic request-header and client CA controllers: the published CAs are read again
  // every minute, so a front proxy CA published (or rotated) after the start is trusted without a restart.
  const fingerprints = (a: DelegatedAuth) => (a.clientCertificateAuthorities ?? []).map((c) => c.fingerprint256).join(',');
  const reload = setInterval(() => {
    void delegatedAuthFromFlags(authFlags, () => undefined).then(
      (next) => {
        if (fingerprints(next) === fingerprints(auth)) return next.close();
        const previous = auth;
        auth = next;
        served.reloadClientCertificates();
        previous.close();
        log('the client and front proxy CAs changed: reloaded');
      },
      (error: unknown) => log(`reading the published authentication settings: ${errorMessage(error)}`),
    );
  }, AUTHENTICATION_RELOAD_MS);
  reload.unref();
  process.stdout.write(
    `Serving metrics.k8s.io/${'v1beta1'} securely on ${o.bindAddress || '0.0.0.0'}:${served.port}, scraping node agents every ${o.metricResolution / 1000}s\n`,
  );
  exitOnSignals(PROGRAM, async () => {
    clearInterval(reload);
    await loop.stop();
    await served.close();
    await Promise.all([nodeInformer.stop(), podInformer.stop()]);
    auth.close();
    client.close();
    tls.agent.destroy();
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`${PROGRAM}: ${errorMessage(err)}\n`);
  process.exit(1);
});
