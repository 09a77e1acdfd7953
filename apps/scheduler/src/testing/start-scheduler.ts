import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { TestEnvironment } from '@svc/apiserver/testing';
import { parseSchedulerOptions } from '@svc/options';
import { Manager, type ControllerLogger } from '@svc/runtime';
import { SchedulerModule } from '../scheduler.module';
import { SchedulerService } from '../scheduler.service';

export interface RunningScheduler {
  app: INestApplicationContext;
  manager: Manager;
  service: SchedulerService;
  stop(): Promise<void>;
}

const silent: ControllerLogger = { info: () => undefined, error: () => undefined };

/**
 * Runs the scheduler against a test environment's API server, wired as the process wires it (the
 * same module, flags parsed by the same parser), without leader election or an HTTPS endpoint.
 */
export async function startScheduler(env: TestEnvironment, flags: readonly string[] = []): Promise<RunningScheduler> {
  const outcome = parseSchedulerOptions(['--leader-elect=false', '--secure-port=0', ...flags]);
  if (outcome.action !== 'run') throw new Error(`flags ${flags.join(' ')} do not run the scheduler`);
  const app = await NestFactory.createApplicationContext(
    SchedulerModule.forRoot(outcome.options, { clientConfig: env.clientConfig, logger: silent, gracefulShutdownMs: 5_000 }),
    { logger: false, abortOnError: false },
  );
  return { app, manager: app.get(Manager), service: app.get(SchedulerService), stop: () => app.close() };
}
