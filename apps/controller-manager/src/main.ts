import { errorMessage } from '@svc/machinery';
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { clientConfigFromOptions } from '@svc/client';
import { parseControllerManagerOptions, parseOrExit, type ControllerManagerOptions } from '@svc/options';
import { exitOnSignals, leaderElectionConfigFromFlags, Manager, type RuntimeModuleOptions } from '@svc/runtime';
import { ControllerManagerModule, selectControllers } from '@svc/controllers';
import { servingPair } from './serving-pair';

async function runtimeOptions(o: ControllerManagerOptions, concurrency: Record<string, number>): Promise<RuntimeModuleOptions> {
  if (o.authorizationSvcconfig) {
    // Delegated authorization asks the API server through SubjectAccessReviews, which it does not serve.
    throw new Error(
      '--authorization-svcconfig is not supported: the API server serves no SubjectAccessReview; leave it empty to serve only --authorization-always-allow-paths',
    );
  }
  return {
    clientConfig: await clientConfigFromOptions(o),
    // Without an authorizer every path but the always-allowed ones is forbidden, as in Kubernetes.
    http:
      o.securePort === 0
        ? undefined
        : { port: o.securePort, host: o.bindAddress, tls: await servingPair(o), alwaysAllowPaths: o.authorizationAlwaysAllowPaths },
    leaderElection: leaderElectionConfigFromFlags(o),
    concurrency,
    informers: { defaultResyncPeriodMs: o.minResyncPeriod },
    // Kubernetes' controller manager waits for its informers as long as it takes the API server to come up.
    cacheSyncTimeoutMs: 10 * 60_000,
  };
}

async function main(): Promise<void> {
  const options = parseOrExit(parseControllerManagerOptions, process.argv.slice(2));
  const controllers = selectControllers(options);
  const concurrency = Object.assign({}, ...controllers.map((c) => c.concurrency(options))) as Record<string, number>;
  const app = await NestFactory.createApplicationContext(ControllerManagerModule.forRoot(options, await runtimeOptions(options, concurrency), controllers), {
    logger: ['error', 'warn'],
    abortOnError: false,
  });
  exitOnSignals('svc-controller-manager', () => app.close());
  const manager = app.get(Manager);
  if (manager.port !== undefined) process.stdout.write(`Serving securely on ${options.bindAddress}:${manager.port}\n`);
  process.stdout.write(`Controllers: ${controllers.map((c) => c.name).join(', ') || 'none'}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`svc-controller-manager: ${errorMessage(err)}\n`);
  process.exit(1);
});
