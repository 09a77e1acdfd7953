import type { ApiObject, OwnerReference, PropagationPolicy } from '@svc/api';
import { apiVersionOfInfo, type Client, type ServedResource } from '@svc/client';
import { errorMessage, groupOfApiVersion, isConflict, isInvalid, isNotFound, specGroupName } from '@svc/machinery';
import type { EventRecorder, Reconcile, Request, Result } from '@svc/runtime';
import {
  FOREGROUND_FINALIZER,
  hasFinalizer,
  isBeingDeleted,
  isDeletingDependents,
  ORPHAN_FINALIZER,
  ownerReferencesOf,
  uidOf,
  type DependencyGraph,
  type GraphNode,
} from './dependency-graph';
import { replaceListPatch, unblocked, withoutOwners } from './owner-patches';
import type { SyncGate } from './sync-gate';

/** How soon an owner waiting for the collector is looked at again while some monitored cache has not synced. */
const UNSYNCED_RETRY_MS = 1_000;
/**
 * How soon a dependent is looked at again when one of its owners was found only by asking the API
 * server, its type not (yet) watched: the graph would not see that owner's deletion.
 */
const UNOBSERVED_OWNER_RETRY_MS = 2_000;
/** Attempts at a conditional write that lost a race (re-read in between), as client-go's RetryOnConflict. */
const WRITE_ATTEMPTS = 5;

/** An owner reference from a cluster-scoped object to a namespaced kind: it can never resolve. */
class InvalidOwnerReference {
  constructor(readonly ref: OwnerReference) {}
}

interface Classified {
  /** Owners that exist and are not deleting in the foreground. */
  solid: OwnerReference[];
  /** Owners that do not exist (or exist with another uid). */
  dangling: OwnerReference[];
  /** The dangling owners whose deletion orphaned their dependents. */
  orphaned: OwnerReference[];
  /** Owners being deleted in the foreground, waiting for their dependents. */
  waiting: OwnerReference[];
  /** Some owner was found live, and no synced cache of its type would show its deletion. */
  unobserved: boolean;
}

/**
 * The garbage collector's sync of one object, addressed by uid (the request's `name`): the same
 * reconciler serves the queue of every monitored resource type, and any of them may ask for any
 * object (an owner's queue asks for its dependents, a dependent's for its owners).
 *
 * - An object being deleted with the `orphan` finalizer: its dependents lose their reference to it,
 *   then the finalizer goes. With `foregroundDeletion`: the finalizer goes once no dependent with
 *   `blockOwnerDeletion: true` is left (the dependents themselves are synced on their own).
 * - Any other object with owners (Kubernetes' attemptToDeleteItem): its owners are classified (the
 *   cache first; an owner the cache does not show is looked up live, so a lagging cache never
 *   condemns a live dependent); with a solid owner only dangling references and references to
 *   owners deleting in the foreground are removed; otherwise the object is deleted, in the
 *   foreground when an owner waits for it and it has dependents itself, else with the policy its
 *   own finalizers ask for (background by default), preconditioned on its uid and resourceVersion.
 */
export class GarbageCollectorReconciler implements Reconcile {
  constructor(
    private readonly graph: DependencyGraph,
    private readonly client: Client,
    private readonly gate: SyncGate,
    private readonly events: EventRecorder,
  ) {}

  reconcile(request: Request): Promise<Result | void> {
    return this.gate.run(request.name, () => this.sync(request.name));
  }

  private async sync(uid: string): Promise<Result | void> {
    const node = this.graph.find(uid);
    // Gone: its dependents were woken by its deletion.
    if (!node) return;
    const obj = node.object;
    if (isBeingDeleted(obj)) {
      const orphan = hasFinalizer(obj, ORPHAN_FINALIZER);
      const foreground = hasFinalizer(obj, FOREGROUND_FINALIZER);
      // Being deleted is a one-way trip: without our finalizers there is nothing to do but wait.
      if (!orphan && !foreground) return;
      // Deciding that no dependent is left needs every dependent type's cache filled.
      if (!this.graph.synced()) return { requeueAfter: UNSYNCED_RETRY_MS };
      if (orphan) {
        await this.orphanDependents(node);
        await this.removeFinalizer(node, ORPHAN_FINALIZER);
      }
      if (foreground) await this.processDeletingDependents(node);
      return;
    }
    if (ownerReferencesOf(obj).length === 0) return;
    return this.attemptToDelete(node);
  }

  private async processDeletingDependents(owner: GraphNode): Promise<void> {
    const uid = uidOf(owner.object);
    const blocking = this.graph.dependents(uid).filter((dep) => ownerReferencesOf(dep.object).some((r) => r.uid === uid && r.blockOwnerDeletion === true));
    if (blocking.length === 0) await this.removeFinalizer(owner, FOREGROUND_FINALIZER);
    // Otherwise each blocking dependent was queued when this owner started deleting, and its own
    // deletion wakes this owner again.
  }

  private async orphanDependents(owner: GraphNode): Promise<void> {
    const uid = uidOf(owner.object);
    const results = await Promise.allSettled(this.graph.dependents(uid).map((dep) => this.removeOwnerReferences(dep, [uid])));
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed.length > 0) {
      throw new Error(`orphaning ${failed.length} dependent(s) of ${describeNode(owner)} failed: ${failed.map((f) => errorMessage(f.reason)).join('; ')}`);
    }
  }

  private async attemptToDelete(node: GraphNode): Promise<Result | void> {
    const latest = await this.getLive(node);
    // Gone, or already on its way out (the cache lags): its own change brings it back if needed.
    if (!latest || isBeingDeleted(latest)) return;
    const refs = ownerReferencesOf(latest);
    if (refs.length === 0) return;
    const classified = await this.classify(node, latest, refs);
    if (classified instanceof InvalidOwnerReference) {
      // Kubernetes forgets such an object: retrying cannot make the reference resolve.
      await this.reportInvalidNamespace(node, classified.ref);
      return;
    }
    const { solid, dangling, orphaned, waiting, unobserved } = classified;
    if (solid.length === 0 && orphaned.length > 0) {
      // Created or seen after its owner was deleted with Orphan: it is orphaned as the others were.
      // Any other dangling owner it has makes it garbage still, and the change wakes it again.
      await this.removeOwnerReferences(
        node,
        orphaned.map((r) => r.uid),
        latest,
      );
      return;
    }
    if (solid.length > 0) {
      // An owner whose type the graph does not watch yet (a custom resource whose definition has
      // just been made) could go unnoticed: the dependent checks on it until the graph sees it.
      const recheck = unobserved ? { requeueAfter: UNOBSERVED_OWNER_RETRY_MS } : undefined;
      if (dangling.length === 0 && waiting.length === 0) return recheck;
      // References to owners deleting in the foreground go too, or those owners would wait forever.
      await this.removeOwnerReferences(
        node,
        [...dangling, ...waiting].map((r) => r.uid),
        latest,
      );
      return recheck;
    }
    await this.collect(node, latest, waiting.length > 0);
  }

  /**
   * Deletes an object none of whose owners is solid: in the foreground when an owner waits for it
   * and it has dependents itself, else with the policy its own finalizers ask for (background by default).
   */
  private async collect(node: GraphNode, latest: ApiObject, ownerWaits: boolean): Promise<void> {
    const dependents = this.graph.dependents(uidOf(latest));
    if (ownerWaits && dependents.length > 0) {
      let current = latest;
      // Kubernetes' cycle breaker: a dependent deleting in the foreground may itself be what the
      // waiting owner waits for, so this object stops blocking its owners before it waits too.
      if (dependents.some((dep) => isDeletingDependents(dep.object))) current = await this.unblockOwnerReferences(node, latest);
      await this.deleteObject(node, current, 'Foreground');
      return;
    }
    const policy: PropagationPolicy = hasFinalizer(latest, ORPHAN_FINALIZER)
      ? 'Orphan'
      : hasFinalizer(latest, FOREGROUND_FINALIZER)
        ? 'Foreground'
        : 'Background';
    await this.deleteObject(node, latest, policy);
  }

  private async classify(node: GraphNode, dependent: ApiObject, refs: readonly OwnerReference[]): Promise<Classified | InvalidOwnerReference> {
    const out: Classified = { solid: [], dangling: [], orphaned: [], waiting: [], unobserved: false };
    const namespace = dependent.metadata?.namespace || undefined;
    for (const ref of refs) {
      const resource = this.graph.resourceFor(ref.apiVersion, ref.kind);
      // A kind not served (yet: a CRD discovery has not caught up with) is retried, never taken as absent.
      if (!resource) throw new Error(`unable to get REST mapping for ${ref.apiVersion}/${ref.kind}`);
      if (!namespace && resource.namespaced) return new InvalidOwnerReference(ref);
      const owner = await this.lookUpOwner(node, ref, resource, namespace);
      if (!owner) {
        out.dangling.push(ref);
        if (this.graph.orphanedOwners.has(ref.uid)) out.orphaned.push(ref);
      } else if (isDeletingDependents(owner)) out.waiting.push(ref);
      else {
        out.solid.push(ref);
        if (!this.graph.ownerInCache(ref, namespace) && !this.graph.observes(resource)) out.unobserved = true;
      }
    }
    return out;
  }

  /** The owner `ref` names, from the cache when it shows it, else from the API server; undefined when absent. */
  private async lookUpOwner(node: GraphNode, ref: OwnerReference, resource: ServedResource, namespace: string | undefined): Promise<ApiObject | undefined> {
    const cached = this.graph.ownerInCache(ref, namespace);
    if (cached) return cached.object;
    const elsewhere = this.graph.find(ref.uid);
    if (elsewhere?.resource.namespaced && (elsewhere.object.metadata?.namespace ?? '') !== (namespace ?? '')) await this.reportInvalidNamespace(node, ref);
    const ownerNamespace = resource.namespaced ? namespace : undefined;
    const coordinates = {
      uid: ref.uid,
      group: specGroupName(groupOfApiVersion(ref.apiVersion)),
      kind: ref.kind,
      name: ref.name,
      namespace: ownerNamespace ?? '',
    };
    if (this.graph.absentOwners.has(coordinates)) return undefined;
    let owner: ApiObject;
    try {
      owner = await this.client.dynamic(resource).get(ref.name, { namespace: ownerNamespace });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      this.graph.absentOwners.add(coordinates);
      return undefined;
    }
    if (uidOf(owner) !== ref.uid) {
      this.graph.absentOwners.add(coordinates);
      return undefined;
    }
    return owner;
  }

  /** Removes the references to `ownerUids` (a 404 means there is nothing left to unlink). */
  private async removeOwnerReferences(node: GraphNode, ownerUids: readonly string[], latest?: ApiObject): Promise<void> {
    await this.patchOwnerReferences(node, latest, (refs) => withoutOwners(refs, ownerUids));
  }

  private async unblockOwnerReferences(node: GraphNode, latest: ApiObject): Promise<ApiObject> {
    return (await this.patchOwnerReferences(node, latest, unblocked)) ?? latest;
  }

  /**
   * Sets the object's ownerReferences to `change(current)`, by a JSON patch conditional on its uid
   * and on the list it read; a lost race reads again. Undefined when the object is gone.
   */
  private async patchOwnerReferences(
    node: GraphNode,
    latest: ApiObject | undefined,
    change: (refs: readonly OwnerReference[]) => OwnerReference[],
  ): Promise<ApiObject | undefined> {
    const uid = uidOf(node.object);
    let current = latest;
    for (let attempt = 1; ; attempt++) {
      current ??= await this.getLive(node);
      if (!current) return undefined;
      const refs = ownerReferencesOf(current);
      const next = change(refs);
      if (JSON.stringify(next) === JSON.stringify(refs)) return current;
      try {
        return await this.client
          .dynamic(node.resource)
          .patch(nameOf(current), replaceListPatch(uid, '/metadata/ownerReferences', refs, next), 'json', { namespace: current.metadata?.namespace });
      } catch (error) {
        if (isNotFound(error)) return undefined;
        if (!(isInvalid(error) || isConflict(error)) || attempt >= WRITE_ATTEMPTS) throw error;
        current = undefined;
      }
    }
  }

  /**
   * Removes `finalizer` from the live object (conditional, as above); the last one lets the server
   * delete it. An owner whose `orphan` finalizer goes is remembered first, so that a dependent seen
   * only after it went is orphaned too.
   */
  private async removeFinalizer(node: GraphNode, finalizer: string): Promise<void> {
    const uid = uidOf(node.object);
    for (let attempt = 1; ; attempt++) {
      const current = await this.getLive(node);
      const finalizers = current?.metadata?.finalizers ?? [];
      if (!current || !finalizers.includes(finalizer)) return;
      if (finalizer === ORPHAN_FINALIZER) this.graph.orphanedOwners.add(uid);
      try {
        await this.client.dynamic(node.resource).patch(
          nameOf(current),
          replaceListPatch(
            uid,
            '/metadata/finalizers',
            finalizers,
            finalizers.filter((f) => f !== finalizer),
          ),
          'json',
          { namespace: current.metadata?.namespace },
        );
        return;
      } catch (error) {
        if (isNotFound(error)) return;
        if (!(isInvalid(error) || isConflict(error)) || attempt >= WRITE_ATTEMPTS) throw error;
      }
    }
  }

  /**
   * Deletes the object as read (uid and resourceVersion preconditions), so one adopted or changed
   * meanwhile is not deleted on stale grounds. When only unrelated fields changed (same owners),
   * the delete is retried on the uid alone, so frequent status writes do not starve collection.
   */
  private async deleteObject(node: GraphNode, latest: ApiObject, policy: PropagationPolicy): Promise<void> {
    const api = this.client.dynamic(node.resource);
    const name = nameOf(latest);
    const namespace = latest.metadata?.namespace;
    const uid = uidOf(latest);
    try {
      await api.delete(name, { namespace, propagationPolicy: policy, preconditions: { uid, resourceVersion: latest.metadata?.resourceVersion } });
      return;
    } catch (error) {
      if (isNotFound(error)) return;
      if (!isConflict(error)) throw error;
    }
    const live = await this.getLive(node);
    if (!live) return;
    if (JSON.stringify(ownerReferencesOf(live)) !== JSON.stringify(ownerReferencesOf(latest))) {
      throw new Error(`${describeNode(node)} changed its owners while being collected; it is looked at again`);
    }
    try {
      await api.delete(name, { namespace, propagationPolicy: policy, preconditions: { uid } });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  /** The object from the API server; undefined when it is gone or another object took its name. */
  private async getLive(node: GraphNode): Promise<ApiObject | undefined> {
    const meta = node.object.metadata ?? {};
    try {
      const live = await this.client.dynamic(node.resource).get(meta.name ?? '', { namespace: meta.namespace || undefined });
      return uidOf(live) === uidOf(node.object) ? live : undefined;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** Kubernetes' OwnerRefInvalidNamespace warning, on the dependent. */
  private async reportInvalidNamespace(node: GraphNode, ref: OwnerReference): Promise<void> {
    const meta = node.object.metadata ?? {};
    const namespace = meta.namespace ?? '';
    await this.events.warning(
      { apiVersion: apiVersionOfInfo(node.resource), kind: node.resource.kind, metadata: { name: meta.name, namespace: meta.namespace, uid: meta.uid } },
      'OwnerRefInvalidNamespace',
      `ownerRef [${ref.apiVersion}/${ref.kind}, namespace: ${namespace}, name: ${ref.name}, uid: ${ref.uid}] does not resolve to a parent with uid ${ref.uid} in namespace ${namespace}`,
    );
  }
}

function nameOf(obj: ApiObject): string {
  return obj.metadata?.name ?? '';
}

function describeNode(node: GraphNode): string {
  const meta = node.object.metadata ?? {};
  return `${node.resource.resource}${node.resource.group ? `.${node.resource.group}` : ''} ${meta.namespace ? `${meta.namespace}/` : ''}${meta.name} (${meta.uid})`;
}
