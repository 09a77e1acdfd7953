import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { parseControllerManagerOptions } from '@svc/options';
import { Manager, type ControllerLogger } from '@svc/runtime';
import type { ClientConfig } from '@svc/client';
import type { BuiltInController } from '../built-in-controller';
import { BUILT_IN_CONTROLLERS } from '../built-in-controllers';
import { ControllerManagerModule } from '../controller-manager.module';

/** The built-in controllers of these `--controllers` names; an unknown name is an error naming it. */
export function builtInControllers(names: readonly string[]): BuiltInController[] {
  const unknown = names.filter((name) => !BUILT_IN_CONTROLLERS.some((c) => c.name === name));
  if (unknown.length > 0) {
    throw new Error(`unknown controllers ${unknown.join(', ')}: the built-in controllers are ${BUILT_IN_CONTROLLERS.map((c) => c.name).join(', ')}`);
  }
  return BUILT_IN_CONTROLLERS.filter((c) => names.includes(c.name));
}

export interface RunningControllers {
  app: INestApplicationContext;
  manager: Manager;
  stop(): Promise<void>;
}

const silent: ControllerLogger = { info: () => undefined, error: () => undefined };

/**
 * Runs built-in controllers against an API server (a test environment's, or any `clientConfig`), wired
 * exactly as the process wires them (the same Nest module, the flags parsed by the same parser),
 * without leader election or an HTTPS endpoint. `flags` are controller-manager flags
 * (`--concurrent-replicaset-syncs=2`).
 */
export async function startControllers(
  env: { clientConfig: ClientConfig },
  controllers: readonly BuiltInController[],
  flags: readonly string[] = [],
  options: { logger?: ControllerLogger } = {},
): Promise<RunningControllers> {
  const outcome = parseControllerManagerOptions(['--leader-elect=false', '--secure-port=0', ...flags]);
  if (outcome.action !== 'run') throw new Error(`flags ${flags.join(' ')} do not run the controllers`);
  const parsed = outcome.options;
  const concurrency = Object.assign({}, ...controllers.map((c) => c.concurrency(parsed))) as Record<string, number>;
  const app = await NestFactory.createApplicationContext(
    ControllerManagerModule.forRoot(
      parsed,
      { clientConfig: env.clientConfig, concurrency, logger: options.logger ?? silent, gracefulShutdownMs: 5_000 },
      controllers,
    ),
    { logger: false, abortOnError: false },
  );
  const manager = app.get(Manager);
  return { app, manager, stop: () => app.close() };
}
