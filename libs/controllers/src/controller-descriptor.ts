import type { ControllerManagerOptions, ControllerName } from '@svc/options';
import type { ManagedClasses, Manager } from '@svc/runtime';

/**
 * One `--controllers` entry (Kubernetes' ControllerDescriptor): the reconcilers and runnables it
 * runs, the typed options they take, and how the flags tune them. Its classes are made by the
 * manager's container as a user's operator's are (`createManager`).
 */
export interface ControllerDescriptor extends ManagedClasses {
  name: ControllerName;
  /**
   * The options its classes take, made from the flags: each value is bound to its own class, which
   * a constructor names as a parameter type (`constructor(client: Client, options: ReplicaSetOptions)`).
   */
  options?(flags: ControllerManagerOptions, manager: Manager): readonly object[] | Promise<readonly object[]>;
  /** Workers per reconciler name, from the controller's `--concurrent-*-syncs` flag. */
  concurrency(flags: ControllerManagerOptions): Record<string, number>;
  /** False when another flag switches the controller off (`--enable-garbage-collector=false`). */
  enabled?(flags: ControllerManagerOptions): boolean;
}
