import { Client, clientConfigFromOptions, inClusterConfig, type ClientConfig } from '@svc/client';
import { errorMessage } from '@svc/machinery';
import { parseDnsOptions, parseOrExit, type DnsOptions } from '@svc/options';
import { exitOnSignals } from '@svc/runtime';
import { DnsServer } from './server/dns-server';
import { Forwarder, readUpstreams } from './server/upstream';
import { ClusterRecords } from './zone/cluster-records';
import { InformerClusterView } from './zone/informer-cluster-view';

const PROGRAM = 'svc-dns';

function log(line: string): void {
  process.stderr.write(`${new Date().toISOString()} ${line}\n`);
}

/** The flags' connection, else (in a pod) the service account's. */
async function clientConfig(o: DnsOptions): Promise<ClientConfig> {
  if (!o.svcconfig && !o.master) {
    const inCluster = await inClusterConfig(process.env);
    if (inCluster) return { ...inCluster, qps: o.svcApiQps, burst: o.svcApiBurst, contentType: o.svcApiContentType };
  }
  return clientConfigFromOptions(o);
}

async function main(): Promise<void> {
  const options = parseOrExit(parseDnsOptions, process.argv.slice(2));
  const client = new Client(await clientConfig(options));
  const view = new InformerClusterView(client, {
    info: () => undefined,
    warn: (m) => log(`informers: ${m}`),
    error: (m, e) => log(`informers: ${m}: ${errorMessage(e)}`),
  });
  const records = new ClusterRecords(view, { zone: options.clusterDomain, ttl: options.ttl });
  const upstreams = readUpstreams(options.resolvConf, { host: options.bindAddress, port: options.port });
  if (options.resolvConf && upstreams.length === 0) log(`no nameserver to forward to in ${options.resolvConf}: names outside the cluster are refused`);
  const forwarder = new Forwarder(upstreams, options.upstreamTimeout);
  // The caches sync before the port opens: a server that answered from an empty view would deny names that exist.
  await view.start(log);
  const server = new DnsServer({ records, forwarder, maxTcpConnections: options.maxTcpConnections, log });
  const port = await server.start(options.bindAddress, options.port);
  const host = options.bindAddress.includes(':') ? `[${options.bindAddress}]` : options.bindAddress;
  process.stdout.write(
    `Serving DNS for ${options.clusterDomain} on ${host}:${port} (UDP and TCP), forwarding other names to ${upstreams.join(', ') || 'nobody'}\n`,
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
