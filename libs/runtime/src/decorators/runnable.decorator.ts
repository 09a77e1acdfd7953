import 'reflect-metadata';
import type { Client } from '@svc/client';
import type { CacheDeclarations } from '../reconcile/cache-declarations';
import type { WriteDeclarations } from '../reconcile/write-declarations';
import type { CacheReader } from '../reconcile/cache-reader';

/** What the manager hands a runnable when it starts it. */
export interface RunContext {
  /** The manager's client (read-your-writes, as a reconcile's). */
  client: Client;
  /** Typed reads of the manager's caches: what the runnable declared in `reads` and `indexes`, and any other cache the manager holds. */
  cache: CacheReader;
}

/**
 * Work a manager runs besides its reconcilers (controller-runtime's Runnable), such as a periodic
 * sweep or a scheduler's loop: `run` works until `signal` aborts, then finishes what is in flight and
 * resolves. Declared with `@Runnable` on a class, or handed to `manager.addRunnable` as an object.
 */
export interface Runnable {
  /** Name in logs, when no `@Runnable` names it. */
  readonly name?: string;
  /** Works until `signal` aborts; a rejection is logged. */
  run(signal: AbortSignal, context: RunContext): Promise<void>;
}

/** What `@Runnable` records. */
export interface RunnableOptions extends CacheDeclarations, WriteDeclarations {
  /** Name in logs. */
  name: string;
  /**
   * True (the default): runs while this process leads, started when leadership is gained (after
   * the caches synced) and stopped when it is lost. False: runs from the manager's start to its
   * stop whether it leads or not, for work a standby does too (discovering what to watch).
   */
  leaderElection?: boolean;
}

export const RUNNABLE_METADATA = Symbol.for('svc.runtime.runnable');

/** A class whose instances `@Runnable` accepts. */
export type RunnableClass = abstract new (...args: never[]) => Runnable;

/**
 * Marks a class as work the manager runs (see {@link Runnable}). It records the options and nothing
 * more: `createManager` (or `RuntimeModule`) resolves the class and hands the instance to the manager.
 */
export function Runnable(options: RunnableOptions): <C extends RunnableClass>(target: C) => void {
  return (target) => {
    Reflect.defineMetadata(RUNNABLE_METADATA, options, target);
  };
}

/** The options `@Runnable` recorded on a class (or the class of an instance), if any. */
export function getRunnableOptions(target: object): RunnableOptions | undefined {
  const cls = typeof target === 'function' ? target : target.constructor;
  return Reflect.getMetadata(RUNNABLE_METADATA, cls) as RunnableOptions | undefined;
}
