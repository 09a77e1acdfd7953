import type { ControllerManagerOptions } from '@svc/options';

/** Injection token of the parsed flags, for reconcilers that read their own (sync periods, switches). */
export const CONTROLLER_MANAGER_OPTIONS = Symbol.for('svc.controller-manager.options');

export type { ControllerManagerOptions };
