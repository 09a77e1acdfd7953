import type { PersistentVolumeClaim, Pod } from '@svc/api';
import { BUILTIN_RESOURCES, Client } from '@svc/client';
import { isNotFound } from '@svc/machinery';
import { Reconciler, type Predicate, type Reconcile, type ReconcileContext, type Request, type Result } from '@svc/runtime';
import { isDeletionCandidate, needsFinalizer, withFinalizer } from '../common/finalizers';
import { ephemeralClaimName, isPodTerminated, POD_CLAIM_INDEX, podClaimIndex, podClaimNames } from '../common/pod-claim-index';
import { PVC_PROTECTION_FINALIZER } from '../persistentvolume/volume-annotations';

export const PVC_PROTECTION_RECONCILER_NAME = 'pvc-protection';

/**
 * Whether the pod holds the claim: only a pod placed on a node can have mounted it (the node agent
 * refuses to start a pod on a claim being deleted), and only until it has terminated; an ephemeral
 * volume's claim counts only when it is the pod's own (the pod is its controller).
 */
export function podUsesClaim(pod: Pod, claim: PersistentVolumeClaim): boolean {
  if (!pod.spec.nodeName || isPodTerminated(pod)) return false;
  const name = claim.metadata?.name;
  return (pod.spec.volumes ?? []).some((volume) => {
    if (volume.persistentVolumeClaim) return volume.persistentVolumeClaim.claimName === name;
    if (!volume.ephemeral || ephemeralClaimName(pod, volume.name) !== name) return false;
    return (claim.metadata?.ownerReferences ?? []).some((ref) => ref.controller && ref.uid === pod.metadata?.uid);
  });
}

/** Pods matter when they start or stop holding claims: their own changes are not filtered finely, only pods with claims pass. */
const podWithClaims: Predicate<Pod> = (event) => podClaimNames(event.object).length > 0;

/**
 * Kubernetes' PVC protection controller: a claim being deleted keeps the `kubernetes.io/pvc-protection`
 * finalizer while a pod that has not terminated uses it, and loses it once none does (the server then
 * removes the claim); a claim without the finalizer that is not being deleted gets it (admission adds
 * it to new claims; this covers older ones). "Not in use" is confirmed with the API server, since the
 * pod cache may lag a pod just created.
 */
@Reconciler({
  name: PVC_PROTECTION_RECONCILER_NAME,
  for: BUILTIN_RESOURCES.persistentVolumeClaims,
  watches: [
    {
      resource: BUILTIN_RESOURCES.pods,
      mapTo: (pod) => podClaimNames(pod).map((name) => ({ namespace: pod.metadata?.namespace ?? '', name })),
      predicates: [podWithClaims],
    },
  ],
  indexes: [podClaimIndex],
})
export class PvcProtectionReconciler implements Reconcile {
  constructor(private readonly client: Client) {}

  async reconcile({ namespace = '', name }: Request, { cache }: ReconcileContext): Promise<Result> {
    const claim = cache.get(BUILTIN_RESOURCES.persistentVolumeClaims, { namespace, name });
    if (!claim) return {};
    if (isDeletionCandidate(claim, PVC_PROTECTION_FINALIZER)) {
      const cached = cache.byIndex<Pod>(BUILTIN_RESOURCES.pods, POD_CLAIM_INDEX, `${namespace}/${name}`);
      if (cached.some((pod) => podUsesClaim(pod, claim))) return {};
      if (await this.usedPerServer(claim)) return {};
      await this.write(withFinalizer(claim, PVC_PROTECTION_FINALIZER, false));
      return {};
    }
    if (needsFinalizer(claim, PVC_PROTECTION_FINALIZER)) await this.write(withFinalizer(claim, PVC_PROTECTION_FINALIZER, true));
    return {};
  }

  private async usedPerServer(claim: PersistentVolumeClaim): Promise<boolean> {
    const pods = await this.client.pods.listAll({ namespace: claim.metadata?.namespace });
    return pods.items.some((pod) => podUsesClaim(pod, claim));
  }

  private async write(claim: PersistentVolumeClaim): Promise<void> {
    try {
      await this.client.persistentVolumeClaims.update(claim, { namespace: claim.metadata?.namespace });
    } catch (error) {
      // Gone already; anything else (a conflict with a newer claim) is retried.
      if (!isNotFound(error)) throw error;
    }
  }
}
