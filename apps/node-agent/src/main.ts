import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { componentGitVersion } from '@svc/api';
import { Client } from '@svc/client';
import { CriClient } from '@svc/cri';
import { errorMessage } from '@svc/machinery';
import { parseDuration, parseNodeAgentFlags, parseOrExit, productVersion } from '@svc/options';
import { ConfigFileError, defaultNodeAgentConfiguration, loadCredentialProviderConfig, loadNodeAgentConfiguration } from './config/load-config-file';
import type { CredentialProviderConfig } from './config/credential-provider-config';
import type { NodeAgentConfiguration } from './config/node-agent-configuration';
import { credentialLookup } from './images/credentials';
import { defaultNodeIP, hostInfo, swapOn } from './node/host-facts';
import { PodStartMetrics } from './pods/pod-start-metrics';
import { NodeAgent } from './node-agent';
import { startNodeAgentServers, type NodeAgentServers } from './server/node-agent-servers';
import { bootstrapClientIdentity, ClientCertificateRotation } from './identity/client-identity';
import { ServingCertificateManager } from './identity/serving-identity';

function log(message: string): void {
  process.stderr.write(`svc-node-agent: ${message}\n`);
}

/** A bad configuration file: one line, exit status 2 (as a bad flag). */
async function orExit2<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!(error instanceof ConfigFileError)) throw error;
    process.stderr.write(`svc-node-agent: ${error.message}\n`);
    process.exit(2);
  }
}

/** The runtime's CRI client, once the runtime answers; the process exits when it does not. */
async function connectRuntime(endpoint: string, timeout: string, startMetrics: PodStartMetrics): Promise<CriClient> {
  const cri = new CriClient(endpoint, {
    timeoutMs: parseDuration(timeout),
    onCall: (method, seconds, failed) => startMetrics.runtimeCall(method, seconds, failed),
  });
  try {
    const version = await cri.version();
    log(`container runtime ${version.runtimeName} ${version.runtimeVersion} (CRI ${version.runtimeApiVersion}) at ${endpoint}`);
  } catch (error) {
    log(`cannot reach the container runtime at ${endpoint}: ${errorMessage(error)}`);
    process.exit(1);
  }
  return cri;
}

/** What the host must be before the agent runs: swap off unless allowed; the agent's own OOM score set. */
function prepareHost(config: NodeAgentConfiguration): void {
  if ((config.failSwapOn ?? true) && swapOn()) {
    log('running with swap on is not supported; turn swap off or set failSwapOn: false');
    process.exit(1);
  }
  try {
    writeFileSync('/proc/self/oom_score_adj', String(config.oomScoreAdj ?? -999));
  } catch (error) {
    log(`cannot set the agent's OOM score to ${config.oomScoreAdj ?? -999}: ${errorMessage(error)}`);
  }
}

/** SIGTERM and SIGINT stop the agent's loops and servers, leaving containers running; a second signal exits at once. */
function exitOnSignals(agent: NodeAgent, servers: NodeAgentServers, cri: CriClient): void {
  let stopping = false;
  const stop = async () => {
    if (stopping) process.exit(1);
    stopping = true;
    await agent.stop();
    await servers.close();
    cri.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

async function main(): Promise<void> {
  const flags = parseOrExit(parseNodeAgentFlags, process.argv.slice(2));
  const config = await orExit2(async () => (flags.config ? loadNodeAgentConfiguration(flags.config) : defaultNodeAgentConfiguration()));
  const providers: CredentialProviderConfig | undefined = flags.imageCredentialProviderConfig
    ? await orExit2(() => loadCredentialProviderConfig(flags.imageCredentialProviderConfig!))
    : undefined;
  prepareHost(config);
  const nodeName = (flags.hostnameOverride || hostInfo().hostname).toLowerCase();
  const identity = { nodeName, svcconfig: flags.svcconfig ?? '', bootstrapSvcconfig: flags.bootstrapKubeconfig, certDir: flags.certDir, log };
  await bootstrapClientIdentity(identity);
  const client = await Client.fromOptions({
    svcconfig: flags.svcconfig,
    master: flags.master,
    svcApiQps: flags.svcApiQps ?? config.svcAPIQPS ?? 5,
    svcApiBurst: flags.svcApiBurst ?? config.svcAPIBurst ?? 10,
    svcApiContentType: config.contentType,
  });
  const startMetrics = new PodStartMetrics();
  const cri = await connectRuntime(flags.containerRuntimeEndpoint, config.runtimeRequestTimeout ?? '2m', startMetrics);
  const nodeIPs = (flags.nodeIp ?? []).filter((ip) => ip !== '');
  const settings = {
    config,
    nodeName,
    nodeIPs: nodeIPs.length > 0 ? nodeIPs : [defaultNodeIP()],
    rootDir: flags.rootDir,
    agentVersion: componentGitVersion(productVersion()),
    port: config.port ?? 10250,
    credentials: credentialLookup(client, providers, flags.imageCredentialProviderBinDir ?? ''),
    startMetrics,
    localPath: { enabled: flags.localPathProvisioner, baseDir: flags.localPathDir },
    log,
  };
  const agent = new NodeAgent(client, cri, settings);
  const rotation = config.rotateCertificates ? new ClientCertificateRotation([client], identity) : undefined;
  rotation?.start();
  const servingCertificates = config.serverTLSBootstrap
    ? new ServingCertificateManager(client, { nodeName, nodeIPs: settings.nodeIPs, certDir: flags.certDir, log })
    : undefined;
  const servers = await startNodeAgentServers(agent, client, config, { certDir: flags.certDir, nodeName, nodeIPs: settings.nodeIPs, log, servingCertificates });
  await servingCertificates?.start();
  await agent.start();
  log(`node ${nodeName} running pods through ${flags.containerRuntimeEndpoint}${servers.port ? `; serving on ${config.address}:${servers.port}` : ''}`);
  exitOnSignals(agent, servers, cri);
}

main().catch((error: unknown) => {
  log(errorMessage(error));
  process.exit(1);
});
