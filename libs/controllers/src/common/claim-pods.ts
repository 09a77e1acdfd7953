import type { Pod, ReplicaSet } from '@svc/api';
import type { ResourceClient } from '@svc/client';
import { isInvalid, isNotFound, type LabelQuery, errorMessage } from '@svc/machinery';
import { controllerReference, getControllerOf } from '@svc/runtime';
import { REPLICA_SET_KIND, type ControllerKind } from './pod-from-template';

/** Adoptions and releases in flight at once for one ReplicaSet. */
const CLAIM_CONCURRENCY = 16;

/** The controller claiming pods: only its metadata counts (a ReplicaSet, a StatefulSet, ...). */
export type PodClaimer = Pick<ReplicaSet, 'metadata'>;

export interface ClaimOptions {
  rs: PodClaimer;
  /** The kind of the controller behind `rs` (ReplicaSet when absent). */
  owner?: ControllerKind;
  selector: LabelQuery;
  pods: ResourceClient<Pod>;
  /**
   * Resolves when the ReplicaSet may adopt, rejects when not: an uncached read shows it is gone,
   * replaced (another uid) or being deleted. Called before the first adoption only.
   */
  canAdopt: () => Promise<void>;
}

type Decision = 'keep' | 'ignore' | 'adopt' | 'release';

/** What the ReplicaSet does with one active pod of its namespace (Kubernetes' ClaimObject). */
export function claimDecision(pod: Pod, rs: PodClaimer, selector: LabelQuery): Decision {
  const ref = getControllerOf(pod);
  const deleting = !!rs.metadata?.deletionTimestamp;
  if (ref) {
    if (ref.uid !== rs.metadata?.uid) return 'ignore';
    if (selector.matches(pod.metadata?.labels)) return 'keep';
    return deleting ? 'ignore' : 'release';
  }
  if (deleting || !selector.matches(pod.metadata?.labels)) return 'ignore';
  if (pod.metadata?.deletionTimestamp) return 'ignore';
  if ((rs.metadata?.namespace ?? '') !== (pod.metadata?.namespace ?? '')) return 'ignore';
  return 'adopt';
}

/**
 * Kubernetes' PodControllerRefManager.ClaimPods: keeps the pods this ReplicaSet controls whose labels
 * still match, adopts matching orphans (pods without a controller, not being deleted) and releases
 * controlled pods whose labels no longer match. Pods of another controller are never touched.
 * Resolves to the pods it now controls; any failed adoption or release rejects after all were tried,
 * so that the ReplicaSet acts only on a settled set of pods.
 */
export async function claimPods(candidates: readonly Pod[], options: ClaimOptions): Promise<Pod[]> {
  const { rs, selector } = options;
  const claimed: Pod[] = [];
  const adopt: Pod[] = [];
  const release: Pod[] = [];
  for (const pod of candidates) {
    const decision = claimDecision(pod, rs, selector);
    if (decision === 'keep') claimed.push(pod);
    else if (decision === 'adopt') adopt.push(pod);
    else if (decision === 'release') release.push(pod);
  }
  if (adopt.length === 0 && release.length === 0) return claimed;

  const errors: unknown[] = [];
  let adoptable: Promise<void> | undefined;
  const tasks: Array<() => Promise<void>> = [
    ...adopt.map((pod) => async () => {
      adoptable ??= options.canAdopt();
      await adoptable;
      if (await adoptPod(options, pod)) claimed.push(pod);
    }),
    ...release.map((pod) => () => releasePod(options, pod)),
  ];
  // A refused adoption check fails every adoption with the same error: report it once.
  await runLimited(tasks, CLAIM_CONCURRENCY, (error) => {
    if (!errors.includes(error)) errors.push(error);
  });
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, errors.map((e) => errorMessage(e)).join('; '));
  return claimed;
}

/**
 * Adds this ReplicaSet as controller. The patch carries the pod's uid (a pod deleted and recreated
 * under the same name is refused) and the resourceVersion read from the cache, so that a controller
 * set meanwhile by someone else is a conflict instead of a second controller reference.
 * False when the pod is gone.
 */
async function adoptPod(options: ClaimOptions, pod: Pod): Promise<boolean> {
  const meta = pod.metadata ?? {};
  const patch = {
    metadata: { ownerReferences: [controllerReference(options.rs, options.owner ?? REPLICA_SET_KIND)], uid: meta.uid, resourceVersion: meta.resourceVersion },
  };
  try {
    await options.pods.patch(meta.name ?? '', patch as never, 'strategic', { namespace: meta.namespace });
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

/**
 * Removes this ReplicaSet's reference (by its uid) and nothing else. A pod that is gone, or was
 * recreated under the same name (its uid no longer matches: Invalid), needs no release.
 */
async function releasePod(options: ClaimOptions, pod: Pod): Promise<void> {
  const meta = pod.metadata ?? {};
  const patch = { metadata: { ownerReferences: [{ $patch: 'delete', uid: options.rs.metadata?.uid }], uid: meta.uid } };
  try {
    await options.pods.patch(meta.name ?? '', patch as never, 'strategic', { namespace: meta.namespace });
  } catch (error) {
    if (isNotFound(error) || isInvalid(error)) return;
    throw error;
  }
}

/** Runs `tasks`, at most `limit` at once; failures go to `onError` and do not stop the others. */
export async function runLimited(tasks: ReadonlyArray<() => Promise<void>>, limit: number, onError: (error: unknown) => void): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const task = tasks[next++];
      try {
        await task();
      } catch (error) {
        onError(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
}
