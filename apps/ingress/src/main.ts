import { networkInterfaces } from 'node:os';
import { Client, clientConfigFromOptions, inClusterConfig, type ClientConfig } from '@svc/client';
import { errorMessage } from '@svc/machinery';
import { parseIngressOptions, parseOrExit, type IngressOptions } from '@svc/options';
import { exitOnSignals } from '@svc/runtime';
import { generate } from 'selfsigned';
import { IngressView } from './cluster/ingress-view';
import { StatusPublisher } from './cluster/status-publisher';
import { IngressServer } from './server/ingress-server';

const PROGRAM = 'svc-ingress';

function log(line: string): void {
  process.stderr.write(`${new Date().toISOString()} ${line}\n`);
}

/** The flags' connection, else (in a pod) the service account's. */
async function clientConfig(o: IngressOptions): Promise<ClientConfig> {
  if (!o.svcconfig && !o.master) {
    const inCluster = await inClusterConfig(process.env);
    if (inCluster) return { ...inCluster, qps: o.svcApiQps, burst: o.svcApiBurst, contentType: o.svcApiContentType };
  }
  return clientConfigFromOptions(o);
}

/** The address reported in the Ingresses' status: the flag's, the bind address, else the host's first IPv4 one. */
function publishAddress(o: IngressOptions): string {
  if (o.publishAddress) return o.publishAddress;
  if (o.bindAddress !== '0.0.0.0' && o.bindAddress !== '::') return o.bindAddress;
  const found = Object.values(networkInterfaces())
    .flat()
    .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal);
  return found?.address ?? '127.0.0.1';
}

/** The certificate served for names no Ingress has one for, made anew on each start, as ingress-nginx's fake one. */
async function defaultCertificate(): Promise<{ cert: string; key: string }> {
  const pems = await generate([{ name: 'commonName', value: 'svc ingress default certificate' }], { keySize: 2048, algorithm: 'sha256' });
  return { cert: pems.cert, key: pems.private };
}

async function main(): Promise<void> {
  const options = parseOrExit(parseIngressOptions, process.argv.slice(2));
  const client = new Client(await clientConfig(options));
  const view = new IngressView(
    client,
    { controllerName: options.controllerName, withoutClass: options.watchIngressWithoutClass as 'default' },
    {
      info: () => undefined,
      warn: (m) => log(`informers: ${m}`),
      error: (m, e) => log(`informers: ${m}: ${errorMessage(e)}`),
    },
  );
  // The caches sync before the ports open: a controller that answered from an empty view would 404 routes that exist.
  await view.start(log);
  const server = new IngressServer({
    view,
    maxHeaderSize: options.maxHeaderSize,
    upstreamTimeoutMs: options.upstreamTimeout,
    requestTimeoutMs: options.requestTimeout,
    defaultCertificate: await defaultCertificate(),
    log,
  });
  const listening = await server.start(options.bindAddress, options.httpPort, options.httpsPort);
  const address = publishAddress(options);
  const status = new StatusPublisher(client, view, address, log);
  view.onChange(() => status.sync());
  status.sync();
  const host = options.bindAddress.includes(':') ? `[${options.bindAddress}]` : options.bindAddress;
  process.stdout.write(
    `Serving the Ingresses of controller ${options.controllerName} on http://${host}:${listening.http.port}` +
      (listening.https ? ` and https://${host}:${listening.https.port}` : '') +
      `, published as ${address}\n`,
  );

  exitOnSignals(PROGRAM, async () => {
    await server.stop();
    await view.stop();
    client.close();
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`${PROGRAM}: ${errorMessage(err)}\n`);
  process.exit(1);
});
