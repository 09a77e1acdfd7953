import { NAMESPACE_FINALIZER, type Namespace } from '@svc/api';
import { BUILTIN_RESOURCES, Client, ignoreNotFound, type ResourceClient } from '@svc/client';
import { isConflict, isNotFound, errorMessage, metaTime } from '@svc/machinery';
import { Reconciler, updateStatusWithRetry, type Reconcile, type ReconcileContext, type Request, type Result } from '@svc/runtime';
import { updatedConditions } from './namespace-conditions';
import { NamespaceOptions } from './namespace-options';
import { NamespacedContentDeleter } from './namespaced-content-deleter';

/** The first look again at a namespace whose content is still going; doubled each time up to the estimate. */
const FIRST_RECHECK_MS = 1_000;
const FINALIZE_ATTEMPTS = 5;

/**
 * Kubernetes' namespace controller. A namespace being deleted (deletionTimestamp set, phase
 * Terminating) is emptied of every namespaced object, progress is reported in its conditions, and
 * once nothing is left its `svc` finalizer is removed through the `finalize` subresource, after which
 * the API server removes it. Every namespace is looked at again each `--namespace-sync-period`.
 */
@Reconciler({ name: 'namespace', for: BUILTIN_RESOURCES.namespaces })
export class NamespaceReconciler implements Reconcile {
  private readonly namespaces: ResourceClient<Namespace>;
  private readonly deleter: NamespacedContentDeleter;
  private readonly syncPeriodMs: number;
  /** Consecutive passes that found content left, per namespace: the backoff of the next look. */
  private readonly passes = new Map<string, number>();

  constructor(
    private readonly client: Client,
    options: NamespaceOptions,
  ) {
    this.namespaces = client.namespaces;
    this.deleter = new NamespacedContentDeleter(client);
    this.syncPeriodMs = options.syncPeriodMs;
  }

  async reconcile({ name }: Request, context: ReconcileContext): Promise<Result> {
    const cached = context.cache.get(BUILTIN_RESOURCES.namespaces, { name });
    if (!cached) return this.done(name);
    if (!cached.metadata?.deletionTimestamp) return this.done(name, this.syncPeriodMs);

    // Deletion acts on the server's current state, not the cache's: the namespace is read afresh.
    let namespace = await this.get(name, context.signal);
    if (!namespace?.metadata?.deletionTimestamp) return this.done(name, this.syncPeriodMs);
    if (namespace.status?.phase !== 'Terminating') {
      namespace = await updateStatusWithRetry(
        this.namespaces,
        namespace,
        (ns) => {
          ns.status = { ...ns.status, phase: 'Terminating' };
        },
        { signal: context.signal },
      );
    }
    // Our finalizer is gone already: other finalizers hold the namespace, nothing is left for us to do.
    if (!(namespace.spec?.finalizers ?? []).includes(NAMESPACE_FINALIZER)) return this.done(name);

    const outcome = await this.deleter.deleteAllContent(name, context.signal);
    const now = metaTime(Date.now());
    if (updatedConditions(namespace.status?.conditions, outcome.findings, now).changed) {
      namespace = await updateStatusWithRetry(
        this.namespaces,
        namespace,
        (ns) => {
          ns.status = { ...ns.status, conditions: updatedConditions(ns.status?.conditions, outcome.findings, now).conditions };
        },
        { signal: context.signal },
      );
    }
    if (outcome.errors.length > 0) {
      // Retried with the controller's backoff; the namespace is not let go while anything failed.
      throw new Error(`namespace ${name}: ${outcome.errors.join('; ')}`);
    }
    if (outcome.estimateSeconds > 0) {
      const pass = (this.passes.get(name) ?? 0) + 1;
      this.passes.set(name, pass);
      // Kubernetes looks again after half the estimate; the first looks come sooner, as finalizers often go fast.
      const estimateMs = (Math.floor(outcome.estimateSeconds / 2) + 1) * 1000;
      return { requeueAfter: Math.min(estimateMs, FIRST_RECHECK_MS * 2 ** (pass - 1)) };
    }
    await this.finalize(namespace, context.signal);
    return this.done(name);
  }

  private done(name: string, requeueAfter?: number): Result {
    this.passes.delete(name);
    return requeueAfter && requeueAfter > 0 ? { requeueAfter } : {};
  }

  private get(name: string, signal: AbortSignal): Promise<Namespace | undefined> {
    return this.namespaces.get(name, { signal }).catch(ignoreNotFound);
  }

  /**
   * Removes our finalizer with a PUT to the `finalize` subresource (the only way spec.finalizers
   * change), retried on conflict with a fresh read. With no finalizer left the server removes the
   * namespace.
   */
  private async finalize(namespace: Namespace, signal: AbortSignal): Promise<void> {
    const name = namespace.metadata!.name!;
    let current: Namespace | undefined = namespace;
    for (let attempt = 1; current; attempt++) {
      const finalizers = (current.spec?.finalizers ?? []).filter((f) => f !== NAMESPACE_FINALIZER);
      const body: Namespace = { ...current, apiVersion: 'v1', kind: 'Namespace', spec: { ...current.spec, finalizers } };
      try {
        await this.client.namespaces.updateSubresource(body, 'finalize', { signal });
        return;
      } catch (error) {
        if (isNotFound(error)) return;
        if (!isConflict(error) || attempt >= FINALIZE_ATTEMPTS) throw new Error(`finalizing namespace ${name}: ${errorMessage(error)}`);
      }
      current = await this.get(name, signal);
      if (!(current?.spec?.finalizers ?? []).includes(NAMESPACE_FINALIZER)) return;
    }
  }
}
