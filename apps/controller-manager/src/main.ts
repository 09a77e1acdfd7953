import 'reflect-metadata';
import { errorMessage } from '@svc/machinery';
import { Client, clientConfigFromOptions, type ClientConfig } from '@svc/client';
import { parseControllerManagerOptions, parseOrExit, tlsServerOptions, type ControllerManagerOptions } from '@svc/options';
import { delegatedAuthFromFlags } from '@svc/delegated-auth';
import { exitOnSignals, leaderElectionConfigFromFlags, servingPair, type ManagerOptions } from '@svc/runtime';
import { createControllerManager, selectControllers, type ControllerDescriptor } from '@svc/controllers';
import { CONTROLLER_SERVICE_ACCOUNT_NAMESPACE, controllerServiceAccount } from './controller-service-accounts';
import { ServiceAccountCredentials } from './service-account-credentials';
import { unsupportedFlagProblem } from './unsupported-flags';

async function runtimeOptions(o: ControllerManagerOptions): Promise<ManagerOptions> {
  return {
    clientConfig: await clientConfigFromOptions(o),
    // Tokens checked by TokenReview, paths by SubjectAccessReview (--authentication-svcconfig,
    // --authorization-svcconfig); without an authorizer only the always-allowed paths are served.
    http:
      o.securePort === 0
        ? undefined
        : {
            port: o.securePort,
            host: o.bindAddress,
            // Like Kubernetes' controller manager: the given pair, else a self-signed one kept in --cert-dir, or in memory without it.
            tls: { ...(await servingPair(o, 'svc-controller-manager')), ...tlsServerOptions(o) },
            auth: await delegatedAuthFromFlags(o),
            profiling: o.profiling,
          },
    leaderElection: leaderElectionConfigFromFlags(o),
    informers: { defaultResyncPeriodMs: o.minResyncPeriod },
    // Kubernetes' controller manager waits for its informers as long as it takes the API server to come up.
    cacheSyncTimeoutMs: 10 * 60_000,
  };
}

/** How long start waits for the controllers' first tokens (the API server may still be coming up). */
const FIRST_TOKENS_TIMEOUT_MS = 60_000;

/**
 * `--use-service-account-credentials`: each controller's connection as its own ServiceAccount, whose
 * first token is obtained before anything starts, so that a server that cannot issue tokens stops
 * the process with the reason rather than leaving every controller failing.
 */
async function controllerIdentities(
  rootConfig: ClientConfig,
  controllers: readonly ControllerDescriptor[],
): Promise<((controller: ControllerDescriptor) => ClientConfig) | undefined> {
  const credentials = new ServiceAccountCredentials(new Client(rootConfig), CONTROLLER_SERVICE_ACCOUNT_NAMESPACE);
  const accounts = [...new Set(controllers.map((c) => controllerServiceAccount(c.name)))];
  const deadline = Date.now() + FIRST_TOKENS_TIMEOUT_MS;
  for (const account of accounts) {
    for (;;) {
      try {
        await credentials.token(account);
        break;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`--use-service-account-credentials: ${errorMessage(error)}`);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  }
  return (controller) => credentials.clientConfig(controllerServiceAccount(controller.name));
}

async function main(): Promise<void> {
  const options = parseOrExit(parseControllerManagerOptions, process.argv.slice(2));
  const unsupported = unsupportedFlagProblem(options);
  if (unsupported !== undefined) {
    process.stderr.write(`svc-controller-manager: ${unsupported}\n`);
    process.exit(2);
  }
  const controllers = selectControllers(options);
  const runtime = await runtimeOptions(options);
  const identities = options.useServiceAccountCredentials ? await controllerIdentities(runtime.clientConfig, controllers) : undefined;
  const { manager } = await createControllerManager(options, runtime, controllers, identities);
  exitOnSignals('svc-controller-manager', () => manager.stop());
  await manager.start();
  if (manager.port !== undefined) process.stdout.write(`Serving securely on ${options.bindAddress}:${manager.port}\n`);
  process.stdout.write(`Controllers: ${controllers.map((c) => c.name).join(', ') || 'none'}\n`);
  if (identities) process.stdout.write(`Each controller acts as its own ServiceAccount in ${CONTROLLER_SERVICE_ACCOUNT_NAMESPACE}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`svc-controller-manager: ${errorMessage(err)}\n`);
  process.exit(1);
});
