import type { Deployment, Pod, ReplicaSet } from '@svc/api';
import { BUILTIN_RESOURCES, Client, ignoreNotFound, type MergePatch, type ResourceClient } from '@svc/client';
import { isNamespaceTerminating, isAlreadyExists, isConflict, isInvalid, isNotFound, LabelQuery, errorMessage } from '@svc/machinery';
import {
  cacheIndex,
  controllerReference,
  EventRecorder,
  getControllerOf,
  onlyOn,
  Reconciler,
  type CacheReader,
  type Reconcile,
  type ReconcileContext,
  type Request,
  type Result,
} from '@svc/runtime';
import {
  calculateStatus,
  deploymentComplete,
  getCondition,
  hasProgressDeadline,
  newCondition,
  pausedConditionChange,
  progressCheckDelayMs,
  rolloutStatus,
  sameStatus,
  setCondition,
  type DeploymentStatus,
} from './deployment-conditions';
import { CONDITION_PROGRESSING, POD_TEMPLATE_HASH_LABEL, Reasons, REVISION_ANNOTATION } from './deployment-keys';
import { computePodTemplateHash, equalIgnoreHash } from './pod-template-hash';
import { desiredReplicasAnnotation, planScale } from './proportional-scaling';
import { oldPodsRunning } from './recreate';
import { planReplicaSetClaims } from './replica-set-claims';
import { activeReplicaSets, byCreationTimestamp, specReplicas } from './replica-set-counts';
import {
  maxRevision,
  replicasAnnotationsNeedUpdate,
  replicasAnnotationValues,
  replicaSetsToCleanUp,
  setNewReplicaSetAnnotations,
  setReplicasAnnotations,
} from './revisions';
import { desiredReplicas, isRollingUpdate } from './rolling-update-bounds';
import { newReplicaSetReplicas, newReplicaSetTarget, oldReplicaSetsTargets } from './rolling-update';

/** The name of the controller, of its metrics, and of its `--concurrent-deployment-syncs` workers. */
export const DEPLOYMENT_CONTROLLER_NAME = 'deployment';

// Indexes this controller adds to the shared caches, so that a reconcile reads only what concerns
// its Deployment, however many other ReplicaSets and pods the cluster holds.
const REPLICASETS_BY_CONTROLLER = 'deployment-controller/replicasets-by-controller-uid';
const ORPHAN_REPLICASETS_BY_NAMESPACE = 'deployment-controller/orphan-replicasets-by-namespace';
const PODS_BY_CONTROLLER = 'deployment-controller/pods-by-controller-uid';

const DEPLOYMENT_KIND = { apiVersion: 'apps/v1', kind: 'Deployment' };

/** The uid of an object's controller, as the index key of what it controls. */
function controllerUid(obj: Pod | ReplicaSet): string[] {
  const uid = getControllerOf(obj)?.uid;
  return uid ? [uid] : [];
}

const replicaSetsByController = cacheIndex(BUILTIN_RESOURCES.replicaSets, REPLICASETS_BY_CONTROLLER, controllerUid);
const orphanReplicaSetsByNamespace = cacheIndex(BUILTIN_RESOURCES.replicaSets, ORPHAN_REPLICASETS_BY_NAMESPACE, (rs) =>
  getControllerOf(rs) ? [] : [rs.metadata?.namespace ?? ''],
);
const podsByController = cacheIndex(BUILTIN_RESOURCES.pods, PODS_BY_CONTROLLER, controllerUid);

/** The Deployments whose selector matches an orphan ReplicaSet (controlled ones reach their owner through `owns`). */
export function deploymentsSelectingOrphan(cache: CacheReader, rs: ReplicaSet): Request[] {
  const namespace = rs.metadata?.namespace;
  if (!namespace || getControllerOf(rs)) return [];
  const requests: Request[] = [];
  for (const d of cache.list(BUILTIN_RESOURCES.deployments, { namespace })) {
    const selector = selectorOf(d);
    if (selector && !selector.isEmpty() && selector.matches(rs.metadata?.labels ?? {})) requests.push({ namespace, name: d.metadata!.name! });
  }
  return requests;
}

/** The Recreate Deployment whose ReplicaSet controlled a deleted pod. */
export function recreateDeploymentOfPod(cache: CacheReader, pod: Pod): Request[] {
  const namespace = pod.metadata?.namespace;
  const rsRef = getControllerOf(pod);
  if (!namespace || rsRef?.kind !== 'ReplicaSet') return [];
  const rs = cache.get(BUILTIN_RESOURCES.replicaSets, { namespace, name: rsRef.name });
  const dRef = rs && rs.metadata?.uid === rsRef.uid ? getControllerOf(rs) : undefined;
  if (dRef?.kind !== 'Deployment') return [];
  const d = cache.get(BUILTIN_RESOURCES.deployments, { namespace, name: dRef.name });
  if (!d || d.metadata?.uid !== dRef.uid || isRollingUpdate(d)) return [];
  return [{ namespace, name: dRef.name }];
}

/** Raised inside a reconcile to end it and come back soon, without counting an error. */
class RequeueSoon extends Error {}

/** One reconcile's view: the Deployment as last written and its ReplicaSets as last written. */
interface SyncState {
  /** The reconcile's reads. */
  cache: CacheReader;
  d: Deployment;
  rsList: ReplicaSet[];
  now: Date;
  /** `d.status` holds a change not written yet: the status sync that ends the reconcile writes it. */
  statusUnwritten?: boolean;
}

interface Scaled {
  scaled: boolean;
  rs: ReplicaSet;
}

/**
 * Rolls Deployments out through ReplicaSets, as Kubernetes' deployment controller does: one
 * ReplicaSet per pod template (named and labelled by its pod-template-hash), rolling updates within
 * maxSurge and maxUnavailable, Recreate, pause, proportional scaling, revisions and rollback, the
 * revision history limit, and the Progressing / Available / ReplicaFailure conditions.
 *
 * Woken by Deployments, the ReplicaSets they control, orphan ReplicaSets their selectors match (to
 * adopt them), and pod deletions (a Recreate rollout waits for its old pods to be gone). Reads come
 * from the shared caches (listers and indexes); writes go through the manager's client, so each
 * reconcile of a Deployment waits until the caches show the previous one's writes.
 */
@Reconciler({
  name: DEPLOYMENT_CONTROLLER_NAME,
  for: BUILTIN_RESOURCES.deployments,
  owns: [BUILTIN_RESOURCES.replicaSets],
  // Indexes of the shared caches, so that a reconcile reads only what concerns its Deployment,
  // however many other ReplicaSets and pods the cluster holds.
  indexes: [replicaSetsByController, orphanReplicaSetsByNamespace, podsByController],
  watches: [
    { resource: BUILTIN_RESOURCES.replicaSets, mapTo: (rs, _r: unknown, cache) => deploymentsSelectingOrphan(cache, rs) },
    { resource: BUILTIN_RESOURCES.pods, mapTo: (pod, _r: unknown, cache) => recreateDeploymentOfPod(cache, pod), predicates: [onlyOn('delete')] },
  ],
})
export class DeploymentReconciler implements Reconcile {
  private readonly deploymentApi: ResourceClient<Deployment>;
  private readonly replicaSetApi: ResourceClient<ReplicaSet>;
  private readonly events: EventRecorder;

  constructor(client: Client) {
    this.deploymentApi = client.deployments;
    this.replicaSetApi = client.replicaSets;
    this.events = new EventRecorder(client, { component: 'deployment-controller' });
  }

  async reconcile({ namespace, name }: Request, { cache }: ReconcileContext): Promise<Result> {
    if (!namespace) return {};
    const cached = cache.get(BUILTIN_RESOURCES.deployments, { namespace, name });
    if (!cached) return {};
    try {
      return await this.syncDeployment(cache, structuredClone<Deployment>(cached));
    } catch (error) {
      // A write raced another writer of the Deployment, or an object it wrote to went away
      // (the Deployment itself being deleted): the change is on its way to the cache and the
      // retry reads it, quietly.
      if (error instanceof RequeueSoon || isConflict(error) || isNotFound(error)) return { requeue: true };
      throw error;
    }
  }

  /** Kubernetes' syncDeployment. */
  private async syncDeployment(cache: CacheReader, d: Deployment): Promise<Result> {
    const now = new Date();
    const selector = selectorOf(d);
    if (!selector || selector.isEmpty()) {
      this.record(d, 'Warning', 'SelectingAll', 'This deployment is selecting all pods. A non-empty selector is required.');
      const generation = Number(d.metadata?.generation ?? 0);
      if ((d.status?.observedGeneration ?? 0) < generation)
        await this.writeStatus({ cache, d, rsList: [], now }, { ...d.status, observedGeneration: generation });
      return {};
    }
    const state: SyncState = { cache, d, rsList: await this.claimReplicaSets(cache, d, selector), now };

    if (d.metadata?.deletionTimestamp) {
      await this.syncStatusOnly(state);
      return {};
    }
    // Pausing and resuming are recorded first, so that time spent paused never counts against the deadline.
    await this.checkPausedConditions(state);
    if (state.d.spec.paused) {
      await this.sync(state);
      return {};
    }
    if (await this.isScalingEvent(state)) {
      await this.sync(state);
      return {};
    }
    return isRollingUpdate(state.d) ? this.rolloutRolling(state) : this.rolloutRecreate(state);
  }

  /**
   * The Deployment's ReplicaSets (Kubernetes' ClaimReplicaSets): those it controls and still
   * selects, plus orphans it selects, adopted; those it controls but no longer selects are
   * released. Adoption first checks, uncached, that the Deployment is still the same and not deleted.
   */
  private async claimReplicaSets(cache: CacheReader, d: Deployment, selector: LabelQuery): Promise<ReplicaSet[]> {
    const namespace = d.metadata!.namespace!;
    const candidates = [
      ...cache.byIndex(BUILTIN_RESOURCES.replicaSets, REPLICASETS_BY_CONTROLLER, d.metadata!.uid!),
      ...cache.byIndex(BUILTIN_RESOURCES.replicaSets, ORPHAN_REPLICASETS_BY_NAMESPACE, namespace),
    ];
    const plan = planReplicaSetClaims(d, candidates, selector);
    const owned = [...plan.owned];
    if (plan.adopt.length > 0) {
      const fresh = await this.deploymentApi.get(d.metadata!.name!, { namespace });
      if (fresh.metadata?.uid !== d.metadata?.uid)
        throw new Error(`original Deployment ${namespace}/${d.metadata?.name} is gone: got uid ${fresh.metadata?.uid}, wanted ${d.metadata?.uid}`);
      if (fresh.metadata?.deletionTimestamp) throw new Error(`${namespace}/${d.metadata?.name} has just been deleted at ${fresh.metadata.deletionTimestamp}`);
      for (const rs of plan.adopt) {
        const patch = { metadata: { ownerReferences: [controllerReference(d, DEPLOYMENT_KIND)], uid: rs.metadata?.uid } };
        const adopted = await this.replicaSetApi.patch(rs.metadata!.name!, patch as MergePatch<ReplicaSet>, 'strategic', { namespace }).catch(ignoreNotFound);
        if (adopted) owned.push(adopted);
      }
    }
    for (const rs of plan.release) {
      const patch = { metadata: { ownerReferences: [{ $patch: 'delete', uid: d.metadata!.uid }], uid: rs.metadata?.uid } };
      // Gone, or replaced under its name (the uid no longer matches: Invalid): nothing to release.
      await this.replicaSetApi.patch(rs.metadata!.name!, patch as unknown as MergePatch<ReplicaSet>, 'strategic', { namespace }).catch((error: unknown) => {
        if (!isInvalid(error)) ignoreNotFound(error);
      });
    }
    return owned;
  }

  /** Kubernetes' FindNewReplicaSet: the oldest ReplicaSet whose template is the Deployment's. */
  private findNewReplicaSet(state: SyncState): ReplicaSet | undefined {
    return [...state.rsList].sort(byCreationTimestamp).find((rs) => equalIgnoreHash(rs.spec.template, state.d.spec.template));
  }

  private split(state: SyncState, newRS: ReplicaSet | undefined): { newRS: ReplicaSet | undefined; oldRSs: ReplicaSet[] } {
    const uid = newRS?.metadata?.uid;
    const current = uid ? state.rsList.find((rs) => rs.metadata?.uid === uid) : undefined;
    return { newRS: current ?? newRS, oldRSs: state.rsList.filter((rs) => !uid || rs.metadata?.uid !== uid) };
  }

  /** The ReplicaSet as last written in this reconcile. */
  private latest(state: SyncState, rs: ReplicaSet | undefined): ReplicaSet | undefined {
    if (!rs) return undefined;
    return state.rsList.find((r) => r.metadata?.uid === rs.metadata?.uid) ?? rs;
  }

  private remember(state: SyncState, rs: ReplicaSet): void {
    const i = state.rsList.findIndex((r) => r.metadata?.uid === rs.metadata?.uid);
    if (i < 0) state.rsList.push(rs);
    else state.rsList[i] = rs;
  }

  /**
   * Kubernetes' getAllReplicaSetsAndSyncRevision: the new ReplicaSet (created when `create` and
   * there is none) with its revision above every old one, and the old ReplicaSets.
   */
  private async getAllReplicaSets(state: SyncState, create: boolean): Promise<{ newRS: ReplicaSet | undefined; oldRSs: ReplicaSet[] }> {
    const existing = this.findNewReplicaSet(state);
    const oldRSs = this.split(state, existing).oldRSs;
    const newRS = await this.getNewReplicaSet(state, existing, oldRSs, create);
    return this.split(state, newRS);
  }

  /** Kubernetes' getNewReplicaSet: the existing new ReplicaSet brought up to date, else (when `create`) a new one. */
  private async getNewReplicaSet(state: SyncState, existing: ReplicaSet | undefined, oldRSs: ReplicaSet[], create: boolean): Promise<ReplicaSet | undefined> {
    const newRevision = maxRevision(oldRSs) + 1;
    if (existing) return this.syncExistingNewReplicaSet(state, existing, newRevision);
    if (!create) return undefined;
    return this.createNewReplicaSet(state, oldRSs, newRevision);
  }

  /** The new ReplicaSet's revision annotations and minReadySeconds follow the Deployment; the Deployment's revision follows it. */
  private async syncExistingNewReplicaSet(state: SyncState, existing: ReplicaSet, newRevision: number): Promise<ReplicaSet> {
    const d = state.d;
    const copy = structuredClone<ReplicaSet>(existing);
    const annotationsChanged = setNewReplicaSetAnnotations(d, copy, newRevision, true);
    const minReadySeconds = d.spec.minReadySeconds ?? 0;
    if (annotationsChanged || (existing.spec.minReadySeconds ?? 0) !== minReadySeconds) {
      // Revision first; the Deployment's own revision follows on the next pass, from this one.
      const patch = {
        metadata: { annotations: copy.metadata!.annotations, uid: existing.metadata?.uid },
        spec: { minReadySeconds: minReadySeconds || null },
      };
      const updated = await this.replicaSetApi.patch(existing.metadata!.name!, patch as MergePatch<ReplicaSet>, 'merge', { namespace: d.metadata!.namespace! });
      this.remember(state, updated);
      return updated;
    }
    const revision = existing.metadata?.annotations?.[REVISION_ANNOTATION];
    if (revision !== undefined) await this.writeRevision(state, revision);
    if (hasProgressDeadline(d) && !getCondition(d.status, CONDITION_PROGRESSING)) {
      const status = structuredClone<DeploymentStatus>(d.status ?? {});
      setCondition(
        status,
        newCondition(CONDITION_PROGRESSING, 'True', Reasons.foundNewReplicaSet, `Found new replica set "${existing.metadata?.name}"`, state.now),
      );
      this.deferStatus(state, status);
    }
    return existing;
  }

  /** Creates the ReplicaSet of the Deployment's template, named by its pod-template-hash, at the size the strategy allows. */
  private async createNewReplicaSet(state: SyncState, oldRSs: ReplicaSet[], newRevision: number): Promise<ReplicaSet> {
    const d = state.d;
    const newRS = newReplicaSetOf(d);
    const replicas = newReplicaSetReplicas(d, [...oldRSs, newRS], newRS);
    newRS.spec.replicas = replicas;
    setNewReplicaSetAnnotations(d, newRS, newRevision, false);
    const { rs: created, alreadyExisted } = await this.createOrFindReplicaSet(state, newRS);
    if (!alreadyExisted && replicas > 0) this.record(d, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${created.metadata?.name} from 0 to ${replicas}`);
    this.remember(state, created);
    await this.writeRevision(state, String(newRevision));
    if (!alreadyExisted && hasProgressDeadline(state.d)) {
      const status = structuredClone<DeploymentStatus>(state.d.status ?? {});
      setCondition(
        status,
        newCondition(CONDITION_PROGRESSING, 'True', Reasons.newReplicaSetCreated, `Created new replica set "${created.metadata?.name}"`, state.now),
      );
      this.deferStatus(state, status);
    }
    return created;
  }

  /**
   * Creates `newRS`; one of its name that exists already is taken when this Deployment controls it
   * with the same template (a slow cache), else it is a hash collision: the collision count goes up
   * and the sync is retried under a new name.
   */
  private async createOrFindReplicaSet(state: SyncState, newRS: ReplicaSet): Promise<{ rs: ReplicaSet; alreadyExisted: boolean }> {
    const d = state.d;
    const namespace = d.metadata!.namespace!;
    const rsName = newRS.metadata!.name!;
    try {
      return { rs: await this.replicaSetApi.create(newRS, { namespace }), alreadyExisted: false };
    } catch (error) {
      if (isAlreadyExists(error)) {
        const found = state.cache.get(BUILTIN_RESOURCES.replicaSets, { namespace, name: rsName }) ?? (await this.replicaSetApi.get(rsName, { namespace }));
        if (getControllerOf(found)?.uid === d.metadata?.uid && equalIgnoreHash(d.spec.template, found.spec.template))
          return { rs: found, alreadyExisted: true };
        await this.writeStatus(state, { ...structuredClone(d.status ?? {}), collisionCount: (d.status?.collisionCount ?? 0) + 1 });
        throw new RequeueSoon(`hash collision for ${rsName}`);
      }
      if (isNamespaceTerminating(error)) throw error;
      const message = `Failed to create new replica set "${rsName}": ${errorMessage(error)}`;
      if (hasProgressDeadline(d)) {
        const status = structuredClone<DeploymentStatus>(d.status ?? {});
        setCondition(status, newCondition(CONDITION_PROGRESSING, 'False', Reasons.failedReplicaSetCreate, message, state.now));
        await this.writeStatus(state, status).catch(() => undefined);
      }
      this.record(d, 'Warning', Reasons.failedReplicaSetCreate, message);
      throw error;
    }
  }

  /** A scaling event: an active ReplicaSet was sized for another spec.replicas than the Deployment's now. */
  private async isScalingEvent(state: SyncState): Promise<boolean> {
    const { newRS, oldRSs } = await this.getAllReplicaSets(state, false);
    if (!newRS) return false;
    const replicas = desiredReplicas(state.d);
    return activeReplicaSets([...oldRSs, newRS]).some((rs) => {
      const desired = desiredReplicasAnnotation(rs);
      return desired !== undefined && desired !== replicas;
    });
  }

  /** Kubernetes' sync: scaling (a scaling event, or a paused Deployment) without rollout progress. */
  private async sync(state: SyncState): Promise<void> {
    const { newRS, oldRSs } = await this.getAllReplicaSets(state, false);
    const plan = planScale(state.d, newRS, oldRSs);
    for (const target of plan.targets) {
      if (plan.annotateUnchanged) await this.scaleReplicaSet(state, target.rs, target.replicas, plan.operation);
      else await this.scaleAndRecord(state, target.rs, target.replicas);
    }
    if (state.d.spec.paused) await this.cleanupDeployment(state, this.split(state, newRS).oldRSs);
    await this.syncDeploymentStatus(state, newRS);
  }

  private async syncStatusOnly(state: SyncState): Promise<void> {
    const { newRS } = await this.getAllReplicaSets(state, false);
    await this.syncDeploymentStatus(state, newRS);
  }

  private async checkPausedConditions(state: SyncState): Promise<void> {
    const condition = pausedConditionChange(state.d, state.now);
    if (!condition) return;
    const status = structuredClone<DeploymentStatus>(state.d.status ?? {});
    setCondition(status, condition);
    await this.writeStatus(state, status);
  }

  /** Kubernetes' rolloutRolling: grow the new ReplicaSet within the surge, else shrink old ones within availability. */
  private async rolloutRolling(state: SyncState): Promise<Result> {
    const found = await this.getAllReplicaSets(state, true);
    const newRS = found.newRS!;
    const target = newReplicaSetTarget(state.d, state.rsList, newRS);
    if (target !== undefined && (await this.scaleAndRecord(state, newRS, target)).scaled) return this.syncRolloutStatus(state, newRS);

    const { newRS: currentNew, oldRSs } = this.split(state, newRS);
    let scaledDown = false;
    for (const step of oldReplicaSetsTargets(state.d, state.rsList, activeReplicaSets(oldRSs), currentNew!)) {
      if ((await this.scaleAndRecord(state, step.rs, step.replicas)).scaled) scaledDown = true;
    }
    if (scaledDown) return this.syncRolloutStatus(state, newRS);

    if (deploymentComplete(state.d, state.d.status ?? {})) await this.cleanupDeployment(state, this.split(state, newRS).oldRSs);
    return this.syncRolloutStatus(state, newRS);
  }

  /** Kubernetes' rolloutRecreate: old ReplicaSets to zero, wait for their pods to be gone, then the new one at full size. */
  private async rolloutRecreate(state: SyncState): Promise<Result> {
    // No new ReplicaSet before the old pods are gone: creating one would start pods too early.
    let { newRS, oldRSs } = await this.getAllReplicaSets(state, false);
    let scaledDown = false;
    for (const rs of activeReplicaSets(oldRSs)) {
      if ((await this.scaleAndRecord(state, rs, 0)).scaled) scaledDown = true;
    }
    if (scaledDown) return this.syncRolloutStatus(state, newRS);

    const selector = selectorOf(state.d)!;
    const podsOf = (rs: ReplicaSet) =>
      state.cache.byIndex(BUILTIN_RESOURCES.pods, PODS_BY_CONTROLLER, rs.metadata!.uid!).filter((p) => selector.matches(p.metadata?.labels ?? {}));
    if (oldPodsRunning(newRS, this.split(state, newRS).oldRSs, podsOf)) return this.syncRolloutStatus(state, newRS);

    if (!newRS) ({ newRS, oldRSs } = await this.getAllReplicaSets(state, true));
    await this.scaleAndRecord(state, newRS!, desiredReplicas(state.d));
    if (deploymentComplete(state.d, state.d.status ?? {})) await this.cleanupDeployment(state, this.split(state, newRS).oldRSs);
    return this.syncRolloutStatus(state, newRS);
  }

  /** Scales when the size differs (Kubernetes' scaleReplicaSetAndRecordEvent). */
  private async scaleAndRecord(state: SyncState, rs: ReplicaSet, replicas: number): Promise<Scaled> {
    const current = this.latest(state, rs)!;
    const size = specReplicas(current);
    if (size === replicas) return { scaled: false, rs: current };
    return this.scaleReplicaSet(state, current, replicas, size < replicas ? 'up' : 'down');
  }

  /**
   * Sets spec.replicas and the size annotations (Kubernetes' scaleReplicaSet). A merge patch
   * without resourceVersion: the replica set controller writes status all the time, and only this
   * controller sizes the ReplicaSets it controls; the uid pins the object.
   */
  private async scaleReplicaSet(state: SyncState, rs: ReplicaSet, replicas: number, operation: string): Promise<Scaled> {
    const current = this.latest(state, rs)!;
    const { desired, max } = replicasAnnotationValues(state.d);
    const size = specReplicas(current);
    const sizeChanged = size !== replicas;
    if (!sizeChanged && !replicasAnnotationsNeedUpdate(current, desired, max)) return { scaled: false, rs: current };
    const annotations: Record<string, string> = {};
    setReplicasAnnotations(annotations, desired, max);
    const patch = { metadata: { annotations, uid: current.metadata?.uid }, spec: { replicas } };
    const updated = await this.replicaSetApi.patch(current.metadata!.name!, patch as MergePatch<ReplicaSet>, 'merge', {
      namespace: current.metadata?.namespace,
    });
    this.remember(state, updated);
    if (sizeChanged)
      this.record(state.d, 'Normal', 'ScalingReplicaSet', `Scaled ${operation} replica set ${updated.metadata?.name} from ${size} to ${replicas}`);
    return { scaled: sizeChanged, rs: updated };
  }

  /** Deletes old ReplicaSets past revisionHistoryLimit, lowest revision first (Kubernetes' cleanupDeployment). */
  private async cleanupDeployment(state: SyncState, oldRSs: ReplicaSet[]): Promise<void> {
    for (const rs of replicaSetsToCleanUp(state.d, oldRSs)) {
      await this.replicaSetApi.delete(rs.metadata!.name!, { namespace: rs.metadata?.namespace }).catch(ignoreNotFound);
      state.rsList = state.rsList.filter((r) => r.metadata?.uid !== rs.metadata?.uid);
    }
  }

  private async syncDeploymentStatus(state: SyncState, newRS: ReplicaSet | undefined): Promise<void> {
    const status = calculateStatus(state.rsList, this.latest(state, newRS), state.d, state.now);
    if (state.statusUnwritten || !sameStatus(state.d.status, status)) await this.writeStatus(state, status);
  }

  /** Kubernetes' syncRolloutStatus, and when to come back to judge the progress deadline. */
  private async syncRolloutStatus(state: SyncState, newRS: ReplicaSet | undefined): Promise<Result> {
    const before = state.d;
    const status = rolloutStatus(state.rsList, this.latest(state, newRS), before, state.now);
    if (state.statusUnwritten || !sameStatus(before.status, status)) await this.writeStatus(state, status);
    const delay = progressCheckDelayMs(before, status, state.now);
    return delay === undefined ? {} : { requeueAfter: Math.max(delay, 1000) };
  }

  private async writeStatus(state: SyncState, status: DeploymentStatus): Promise<void> {
    state.d = await this.deploymentApi.updateStatus({ ...state.d, status }, { namespace: state.d.metadata?.namespace });
    state.statusUnwritten = false;
  }

  /**
   * A condition found on the way (the new ReplicaSet's), kept in the reconcile's view and written by
   * the status sync every rollout path ends with: one status write per reconcile instead of two.
   */
  private deferStatus(state: SyncState, status: DeploymentStatus): void {
    state.d = { ...state.d, status };
    state.statusUnwritten = true;
  }

  /**
   * The Deployment's revision annotation (Kubernetes' SetDeploymentRevision), written on its own as
   * Kubernetes does; a merge patch of the one annotation, so no other field of a stale copy is sent.
   */
  private async writeRevision(state: SyncState, revision: string): Promise<void> {
    if (state.d.metadata?.annotations?.[REVISION_ANNOTATION] === revision) return;
    state.d = await this.deploymentApi.patch(state.d.metadata!.name!, { metadata: { annotations: { [REVISION_ANNOTATION]: revision } } }, 'merge', {
      namespace: state.d.metadata?.namespace,
    });
  }

  /** Events are best effort and never hold a reconcile up. */
  private record(d: Deployment, type: 'Normal' | 'Warning', reason: string, message: string): void {
    void this.events.event({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: d.metadata }, type, reason, message);
  }
}

function selectorOf(d: Deployment): LabelQuery | undefined {
  try {
    return LabelQuery.fromLabelSelector(d.spec?.selector);
  } catch {
    return undefined;
  }
}

/** The ReplicaSet of the Deployment's current template (size 0): named, labelled and selecting by its pod-template-hash. */
function newReplicaSetOf(d: Deployment): ReplicaSet {
  const hash = computePodTemplateHash(d.spec.template, d.status?.collisionCount);
  const template = structuredClone(d.spec.template);
  template.metadata = { ...template.metadata, labels: { ...template.metadata?.labels, [POD_TEMPLATE_HASH_LABEL]: hash } };
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${d.metadata!.name}-${hash}`,
      namespace: d.metadata!.namespace!,
      ownerReferences: [controllerReference(d, DEPLOYMENT_KIND)],
      labels: { ...template.metadata.labels },
    },
    spec: {
      replicas: 0,
      minReadySeconds: d.spec.minReadySeconds,
      selector: { ...structuredClone(d.spec.selector), matchLabels: { ...d.spec.selector.matchLabels, [POD_TEMPLATE_HASH_LABEL]: hash } },
      template,
    },
  };
}
