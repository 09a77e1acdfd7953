import type { PersistentVolumeClaim, Pod, Volume } from '@svc/api';
import { BUILTIN_RESOURCES, Client } from '@svc/client';
import { errorMessage } from '@svc/machinery';
import { EventRecorder, Reconciler, type CacheReader, type Predicate, type Reconcile, type ReconcileContext, type Request, type Result } from '@svc/runtime';
import { ephemeralClaimName, POD_CLAIM_INDEX, podClaimIndex } from '../common/pod-claim-index';
import { RateLimitedEvents } from '../common/rate-limited-events';

export const EPHEMERAL_VOLUME_RECONCILER_NAME = 'ephemeral-volume';

function hasEphemeralVolumes(pod: Pod): boolean {
  return (pod.spec.volumes ?? []).some((v) => v.ephemeral);
}

const withEphemeralVolumes: Predicate<Pod> = (event) => event.type !== 'delete' && hasEphemeralVolumes(event.object);

/** Kubernetes' VolumeIsForPod: the claim of an ephemeral volume must be controlled by the pod. */
export function claimIsForPod(pod: Pod, claim: PersistentVolumeClaim): string | undefined {
  const owned = (claim.metadata?.ownerReferences ?? []).some((ref) => ref.controller && ref.uid === pod.metadata?.uid);
  if (owned) return undefined;
  return `PVC ${claim.metadata?.namespace}/${claim.metadata?.name} was not created for pod ${pod.metadata?.namespace}/${pod.metadata?.name} (pod is not owner)`;
}

/** The claim of one generic ephemeral volume: the template's labels, annotations and spec, owned by the pod. */
export function ephemeralClaim(pod: Pod, volume: Volume): PersistentVolumeClaim {
  const template = volume.ephemeral?.volumeClaimTemplate;
  const labels = template?.metadata?.labels;
  const annotations = template?.metadata?.annotations;
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: ephemeralClaimName(pod, volume.name),
      namespace: pod.metadata?.namespace,
      ownerReferences: [
        { apiVersion: 'v1', kind: 'Pod', name: pod.metadata?.name ?? '', uid: pod.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true },
      ],
      ...(annotations ? { annotations: { ...annotations } } : {}),
      ...(labels ? { labels: { ...labels } } : {}),
    },
    spec: structuredClone(template?.spec ?? {}),
  };
}

/** The pods using a claim that went, to make it again (Kubernetes' onPVCDelete). */
function podsOfClaim(claim: PersistentVolumeClaim, cache: CacheReader): Request[] {
  const namespace = claim.metadata?.namespace ?? '';
  return cache
    .byIndex<Pod>(BUILTIN_RESOURCES.pods, POD_CLAIM_INDEX, `${namespace}/${claim.metadata?.name ?? ''}`)
    .filter(hasEphemeralVolumes)
    .map((pod) => ({ namespace, name: pod.metadata?.name ?? '' }));
}

/**
 * Kubernetes' ephemeral volume controller: for each generic `ephemeral` volume of a pod, the claim
 * `<pod>-<volume>` made from its volumeClaimTemplate, with the pod as its controller, so the garbage
 * collector removes it with the pod. A claim of that name the pod does not own is never used: the pod
 * gets a FailedBinding event, as Kubernetes reports it. Pods being deleted are left alone.
 */
@Reconciler({
  name: EPHEMERAL_VOLUME_RECONCILER_NAME,
  for: BUILTIN_RESOURCES.pods,
  predicates: [withEphemeralVolumes],
  watches: [
    {
      resource: BUILTIN_RESOURCES.persistentVolumeClaims,
      mapTo: (claim, _r: unknown, cache) => podsOfClaim(claim, cache),
      predicates: [(event) => event.type === 'delete'],
    },
  ],
  indexes: [podClaimIndex],
})
export class EphemeralVolumeReconciler implements Reconcile {
  private readonly events: RateLimitedEvents;

  constructor(private readonly client: Client) {
    this.events = new RateLimitedEvents(new EventRecorder(client, { component: 'ephemeral_volume' }));
  }

  async reconcile({ namespace = '', name }: Request, { cache }: ReconcileContext): Promise<Result> {
    const pod = cache.get(BUILTIN_RESOURCES.pods, { namespace, name });
    if (!pod || pod.metadata?.deletionTimestamp) return {};
    for (const volume of pod.spec.volumes ?? []) {
      if (!volume.ephemeral) continue;
      try {
        await this.ensureClaim(pod, volume, cache);
      } catch (error) {
        this.events.emit(
          { apiVersion: 'v1', kind: 'Pod', metadata: pod.metadata },
          'Warning',
          'FailedBinding',
          `ephemeral volume ${volume.name}: ${errorMessage(error)}`,
        );
        throw error;
      }
    }
    return {};
  }

  private async ensureClaim(pod: Pod, volume: Volume, cache: CacheReader): Promise<void> {
    const namespace = pod.metadata?.namespace ?? '';
    const claimName = ephemeralClaimName(pod, volume.name);
    const existing = cache.get(BUILTIN_RESOURCES.persistentVolumeClaims, { namespace, name: claimName });
    if (existing) {
      const problem = claimIsForPod(pod, existing);
      if (problem) throw new Error(problem);
      return;
    }
    try {
      await this.client.persistentVolumeClaims.create(ephemeralClaim(pod, volume), { namespace });
    } catch (error) {
      // AlreadyExists too: a claim the cache does not show yet, whose owner the retry checks.
      throw new Error(`create PVC ${claimName}: ${errorMessage(error)}`);
    }
  }
}
