import type { Client } from '@svc/client';
import type { KeyExpectations } from '../controller/expectations';
import type { CacheReader } from './cache-reader';
import type { Request, Result } from './request';
import type { ReconcileTrigger } from './trigger';

/** What the framework hands each reconcile besides the request. */
export interface ReconcileContext {
  /** The controller's name (metrics label, logs). */
  controller: string;
  /**
   * The manager's client. Writes made through it are remembered per object, so that the next
   * reconcile of the same key waits until the cache has seen them (read-your-writes).
   */
  client: Client;
  /**
   * Typed reads of the manager's informer caches (`cache.get(BUILTIN_RESOURCES.pods, request)`,
   * `cache.list(greetings, { namespace, labelSelector })`), so that reads need no call to the API
   * server. Any resource a reconciler names (`for`, `owns`, `watches`) or the manager was asked an
   * informer for is readable; the controller's `namespace` is read when none is given. They show the
   * key's own earlier writes (read-your-writes). Cached objects are frozen: copy before changing.
   */
  cache: CacheReader;
  /**
   * Aborted when the manager stops waiting for this reconcile (grace period over, or leadership
   * lost). From then on the manager's client withdraws every write of this reconcile not yet sent.
   */
  signal: AbortSignal;
  /**
   * Aborted once the cache shows the reconciled object being deleted (a deletionTimestamp) or gone,
   * before or during this reconcile: what the reconcile does for the object (making its dependents)
   * should stop, as Kubernetes' controllers do not act for an owner that is going.
   */
  deleting: AbortSignal;
  /**
   * Runs `fn` with its writes withdrawn, as those of a cancelled reconcile are, once `signal` aborts
   * (`withdrawOn(context.deleting, () => createPods())`): a write still waiting for the client's rate
   * limiter, or between retries, is then never sent and fails as withdrawn (`isWithdrawn`).
   */
  withdrawOn: <R>(signal: AbortSignal, fn: () => Promise<R>) => Promise<R>;
  /**
   * Creations and deletions of owned objects this key awaits (client-go's expectations): raise them
   * before writing, lower them for writes that failed; the framework lowers them as the owned
   * objects appear and go. While `satisfied()` is false, the cache may not show what this key's
   * reconciles already did: do not create or delete owned objects again.
   */
  expectations: KeyExpectations;
  /**
   * Why this reconcile runs: the events that queued its key since its last reconcile began, equal
   * ones counted (the queue coalesces them into one reconcile). For logs and traces: a reconciler
   * stays level-based and reads the current state whatever the causes.
   */
  trigger: ReconcileTrigger;
}

/**
 * A reconciler: level-based and idempotent. It reads the current state (`context.cache`, listers,
 * client) and makes the world match it; it does not replay events. A thrown error is retried with
 * backoff, except a `TerminalError`.
 */
export interface Reconcile {
  reconcile(request: Request, context: ReconcileContext): Promise<Result | void> | Result | void;
}
