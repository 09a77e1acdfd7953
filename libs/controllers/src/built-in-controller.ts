import type { Provider } from '@nestjs/common';
import type { ControllerManagerOptions, ControllerName } from '@svc/options';

/** One `--controllers` entry this process implements: its reconcilers and how the flags tune them. */
export interface BuiltInController {
  name: ControllerName;
  /** Reconciler classes (each `@Reconciler({ name })`) and whatever else they inject. */
  providers: Provider[];
  /** Workers per reconciler name, from the controller's `--concurrent-*-syncs` flag. */
  concurrency(options: ControllerManagerOptions): Record<string, number>;
  /** False when another flag switches the controller off (`--enable-garbage-collector=false`). */
  enabled?(options: ControllerManagerOptions): boolean;
}
