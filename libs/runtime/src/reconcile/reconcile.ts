import type { Client } from '@svc/client';
import type { Request, Result } from './request';

/** What the framework hands each reconcile besides the request. */
export interface ReconcileContext {
  /** The controller's name (metrics label, logs). */
  controller: string;
  /**
   * The manager's client. Writes made through it are remembered per object, so that the next
   * reconcile of the same key waits until the cache has seen them (read-your-writes).
   */
  client: Client;
  /** Aborted when the manager stops waiting for this reconcile (grace period over). */
  signal: AbortSignal;
}

/**
 * A reconciler: level-based and idempotent. It reads the current state (listers, client) and makes
 * the world match it; it does not replay events. A thrown error is retried with backoff.
 */
export interface Reconcile {
  reconcile(request: Request, context: ReconcileContext): Promise<Result | void> | Result | void;
}
