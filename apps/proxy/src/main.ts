import { hostname } from 'node:os';
import { Client, clientConfigFromOptions, inClusterConfig, type ClientConfig } from '@svc/client';
import { errorMessage } from '@svc/machinery';
import { parseHostPort, parseOrExit, parseProxyOptions, PROXY_FLAGS, PROXY_REFUSED_FLAGS, refusedFlagProblem, type ProxyOptions } from '@svc/options';
import { exitOnSignals } from '@svc/runtime';
import { applyConntrackSettings, applyOomScoreAdj, bridgeNetfilterProblem, kernelSupport } from './host/kernel';
import { IptablesBackend, IptablesCommand } from './iptables/iptables-backend';
import { findExecutable, NftCommand } from './nftables/nft-command';
import { NftablesBackend } from './nftables/nftables-backend';
import { ProxierHealth } from './observe/proxier-health';
import { HealthzServer, MetricsServer } from './observe/proxy-http';
import { ProxyMetrics } from './observe/proxy-metrics';
import { ServiceEvents } from './observe/service-events';
import { PolicyEnforcer } from './policy/policy-enforcer';
import { Proxier } from './sync/proxier';
import type { ProxyBackend } from './sync/proxy-backend';

const PROGRAM = 'svc-proxy';

function log(line: string): void {
  process.stderr.write(`${new Date().toISOString()} ${line}\n`);
}

/** kube-proxy's connection: the flags, else (in a pod) the service account. */
async function clientConfig(o: ProxyOptions): Promise<ClientConfig> {
  if (!o.svcconfig && !o.master) {
    const inCluster = await inClusterConfig(process.env);
    if (inCluster) return { ...inCluster, qps: o.svcApiQps, burst: o.svcApiBurst, contentType: o.svcApiContentType };
  }
  return clientConfigFromOptions(o);
}

/** The backend of `--proxy-mode`: empty picks nftables where it works, else iptables. */
async function chooseBackend(o: ProxyOptions, metrics: ProxyMetrics): Promise<ProxyBackend | string> {
  const nftables = async (): Promise<ProxyBackend | string> => {
    const nft = await NftCommand.locate();
    if (typeof nft === 'string') return nft;
    return new NftablesBackend({
      nft,
      onCleanupFailure: (error) => (metrics.nftablesCleanupFailures.inc(), log(`deleting stale chains failed: ${error.message}`)),
    });
  };
  const iptables = async (): Promise<ProxyBackend | string> => {
    const command = await IptablesCommand.locate();
    if (typeof command === 'string') return command;
    return new IptablesBackend({ iptables: command, localhostNodePorts: o.iptablesLocalhostNodeports, metrics });
  };
  if (o.proxyMode === 'nftables') return nftables();
  if (o.proxyMode === 'iptables') return iptables();
  const nft = await nftables();
  if (typeof nft !== 'string') return nft;
  const ipt = await iptables();
  if (typeof ipt !== 'string') {
    log(`using the iptables mode: ${nft}`);
    return ipt;
  }
  return `neither mode can run here: ${nft}; ${ipt}`;
}

/** `--cleanup`: removes what either mode made, whichever ran. */
async function cleanup(): Promise<number> {
  const removed: string[] = [];
  const failures: string[] = [];
  const nft = await NftCommand.locate();
  if (typeof nft !== 'string') {
    await new NftablesBackend({ nft })
      .cleanup()
      .then((r) => removed.push(...r))
      .catch((e: Error) => failures.push(e.message));
    await PolicyEnforcer.cleanup(nft)
      .then((r) => removed.push(...r))
      .catch((e: Error) => failures.push(e.message));
  }
  const ipt = await IptablesCommand.locate();
  if (typeof ipt !== 'string') {
    await new IptablesBackend({ iptables: ipt, localhostNodePorts: false })
      .cleanup()
      .then((r) => removed.push(...r))
      .catch((e: Error) => failures.push(e.message));
  }
  if (typeof nft === 'string' && typeof ipt === 'string') failures.push(`nothing to clean up with: ${nft}; ${ipt}`);
  for (const line of removed) process.stdout.write(`removed ${line}\n`);
  if (removed.length === 0 && failures.length === 0) process.stdout.write('nothing to remove\n');
  for (const line of failures) process.stderr.write(`${PROGRAM}: ${line}\n`);
  return failures.length ? 1 : 0;
}

async function main(): Promise<void> {
  const options = parseOrExit(parseProxyOptions, process.argv.slice(2));
  const refused = refusedFlagProblem(PROXY_FLAGS, PROXY_REFUSED_FLAGS, options);
  if (refused !== undefined) {
    process.stderr.write(`${PROGRAM}: ${refused}\n`);
    process.exit(2);
  }
  if (options.cleanup) process.exit(await cleanup());

  const nodeName = (options.hostnameOverride || hostname()).trim().toLowerCase();
  const metrics = new ProxyMetrics();
  const backend = await chooseBackend(options, metrics);
  if (typeof backend === 'string') {
    process.stderr.write(`${PROGRAM}: ${backend}\n`);
    process.exit(1);
  }
  const oom = applyOomScoreAdj(options.oomScoreAdj);
  if (oom) log(`oom_score_adj not applied: ${oom}`);
  for (const warning of applyConntrackSettings(options)) log(`conntrack: ${warning}`);
  const bridge = bridgeNetfilterProblem();
  if (bridge) log(bridge);

  const client = new Client(await clientConfig(options));
  // kube-proxy's health timeout: twice the sync period without programming a queued change.
  const health = new ProxierHealth(2 * options.iptablesSyncPeriod);
  const events = new ServiceEvents({ create: (event, params) => client.events.create(event, params) }, PROGRAM, nodeName, log);
  const kernel = kernelSupport();
  const conntrack = findExecutable('conntrack');
  const proxier = new Proxier({
    client,
    nodeName,
    settings: { ...options, nodeportAddresses: options.nodeportAddresses ?? [], masqueradeAll: options.masqueradeAll ?? false },
    backend,
    kernel,
    metrics,
    health,
    events,
    conntrack,
    log,
    informerLogger: { info: () => undefined, warn: (m) => log(`informers: ${m}`), error: (m, e) => log(`informers: ${m}: ${errorMessage(e)}`) },
  });

  // NetworkPolicies are enforced in a table of their own, in the nftables mode only.
  const informerLogger = {
    info: () => undefined,
    warn: (m: string) => log(`informers: ${m}`),
    error: (m: string, e: unknown) => log(`informers: ${m}: ${errorMessage(e)}`),
  };
  const nft = backend.mode === 'nftables' ? await NftCommand.locate() : 'the iptables mode does not enforce them';
  const enforcer = typeof nft === 'string' ? undefined : new PolicyEnforcer({ client, nft, nodeName, families: kernel.families, log, informerLogger });
  if (typeof nft === 'string') log(`NetworkPolicies are not enforced: ${nft}`);

  const servers: Array<{ stop(): Promise<void> }> = [];
  const serve = async (what: string, address: string, start: (host: string, port: number) => Promise<number>) => {
    if (!address) return;
    const { host, port } = parseHostPort(address);
    try {
      const bound = await start(host, port);
      process.stdout.write(`Serving ${what} on ${host.includes(':') ? `[${host}]` : host}:${bound}\n`);
    } catch (error) {
      if (options.bindAddressHardFail) throw new Error(`cannot serve ${what} on ${address}: ${errorMessage(error)}`);
      log(`cannot serve ${what} on ${address}: ${errorMessage(error)}`);
    }
  };
  const healthz = new HealthzServer(health, metrics);
  const metricsServer = new MetricsServer(metrics, () => backend.mode, options.profiling);
  await serve('healthz', options.healthzBindAddress, (h, p) => healthz.start(h, p));
  servers.push(healthz);
  await serve('metrics', options.metricsBindAddress, (h, p) => metricsServer.start(h, p));
  servers.push(metricsServer);

  exitOnSignals(PROGRAM, async () => {
    // The rules stay: traffic keeps flowing while the proxy restarts (--cleanup removes them).
    await proxier.stop();
    await enforcer?.stop();
    await Promise.all(servers.map((s) => s.stop()));
    client.close();
  });

  process.stdout.write(`Using the ${backend.mode} mode for node ${JSON.stringify(nodeName)} (${kernel.families.join(', ')})\n`);
  enforcer?.start();
  await proxier.start();
  process.stdout.write('Rules synced\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`${PROGRAM}: ${errorMessage(err)}\n`);
  process.exit(1);
});
