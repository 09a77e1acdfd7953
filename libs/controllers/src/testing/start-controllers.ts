import 'reflect-metadata';
import { parseControllerManagerOptions } from '@svc/options';
import type { Manager, ControllerLogger } from '@svc/runtime';
import type { ClientConfig } from '@svc/client';
import type { Container } from 'inversify';
import type { ControllerDescriptor } from '../controller-descriptor';
import { BUILT_IN_CONTROLLERS } from '../built-in-controllers';
import { createControllerManager } from '../controller-manager';

/** The built-in controllers of these `--controllers` names; an unknown name is an error naming it. */
export function builtInControllers(names: readonly string[]): ControllerDescriptor[] {
  const unknown = names.filter((name) => !BUILT_IN_CONTROLLERS.some((c) => c.name === name));
  if (unknown.length > 0) {
    throw new Error(`unknown controllers ${unknown.join(', ')}: the built-in controllers are ${BUILT_IN_CONTROLLERS.map((c) => c.name).join(', ')}`);
  }
  return BUILT_IN_CONTROLLERS.filter((c) => names.includes(c.name));
}

export interface RunningControllers {
  manager: Manager;
  /** The container that made the controllers' reconcilers and runnables (`container.get(GarbageCollector)`). */
  container: Container;
  stop(): Promise<void>;
}

const silent: ControllerLogger = { info: () => undefined, error: () => undefined };

/**
 * Runs built-in controllers against an API server (a test environment's, or any `clientConfig`), wired
 * exactly as the process wires them (`createControllerManager`, the flags parsed by the same parser),
 * without leader election or an HTTPS endpoint. `flags` are controller-manager flags
 * (`--concurrent-replicaset-syncs=2`).
 */
export async function startControllers(
  env: { clientConfig: ClientConfig },
  controllers: readonly ControllerDescriptor[],
  flags: readonly string[] = [],
  options: { logger?: ControllerLogger } = {},
): Promise<RunningControllers> {
  const outcome = parseControllerManagerOptions(['--leader-elect=false', '--secure-port=0', ...flags]);
  if (outcome.action !== 'run') throw new Error(`flags ${flags.join(' ')} do not run the controllers`);
  const { manager, container } = await createControllerManager(
    outcome.options,
    { clientConfig: env.clientConfig, logger: options.logger ?? silent, gracefulShutdownMs: 5_000 },
    controllers,
  );
  await manager.start();
  return { manager, container, stop: () => manager.stop() };
}
