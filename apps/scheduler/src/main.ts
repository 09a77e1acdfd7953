import { errorMessage } from '@svc/machinery';
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { clientConfigFromOptions } from '@svc/client';
import { parseOrExit, parseSchedulerOptions, tlsServerOptions, type SchedulerOptions } from '@svc/options';
import { delegatedAuthFromFlags } from '@svc/delegated-auth';
import { exitOnSignals, leaderElectionConfigFromFlags, Manager, servingPair, type RuntimeModuleOptions } from '@svc/runtime';
import { SchedulerModule } from './scheduler.module';
import { unsupportedFlagProblem } from './unsupported-flags';

async function runtimeOptions(o: SchedulerOptions): Promise<RuntimeModuleOptions> {
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
            tls: { ...(await servingPair(o, 'svc-scheduler')), ...tlsServerOptions(o) },
            auth: await delegatedAuthFromFlags(o),
            profiling: o.profiling,
          },
    leaderElection: leaderElectionConfigFromFlags(o),
    // Like kube-scheduler, wait for the informers as long as it takes the API server to come up.
    cacheSyncTimeoutMs: 10 * 60_000,
    gracefulShutdownMs: 10_000,
  };
}

async function main(): Promise<void> {
  const options = parseOrExit(parseSchedulerOptions, process.argv.slice(2));
  const unsupported = unsupportedFlagProblem(options);
  if (unsupported !== undefined) {
    process.stderr.write(`svc-scheduler: ${unsupported}\n`);
    process.exit(2);
  }
  const app = await NestFactory.createApplicationContext(SchedulerModule.forRoot(options, await runtimeOptions(options)), {
    logger: ['error', 'warn'],
    abortOnError: false,
  });
  exitOnSignals('svc-scheduler', () => app.close());
  const manager = app.get(Manager);
  if (manager.port !== undefined) process.stdout.write(`Serving securely on ${options.bindAddress}:${manager.port}\n`);
  process.stdout.write(`Scheduling pods of schedulerName ${JSON.stringify(options.schedulerName)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`svc-scheduler: ${errorMessage(err)}\n`);
  process.exit(1);
});
