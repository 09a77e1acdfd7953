import type { Pod } from '@svc/api';
import { BUILTIN_RESOURCES } from '@svc/client';
import { cacheIndex } from '@svc/runtime';

/**
 * The pod cache index by claim: `namespace/claim` for each claim a pod's volumes use, directly
 * (`persistentVolumeClaim`) or through a generic ephemeral volume (the claim `<pod>-<volume>`), as
 * Kubernetes' PodPVCIndexFunc. The protection, binding and ephemeral controllers find a claim's pods by it.
 */
export const POD_CLAIM_INDEX = 'podPVC';

/** The claim a generic ephemeral volume of the pod gets (Kubernetes' ephemeral.VolumeClaimName). */
export function ephemeralClaimName(pod: Pod, volumeName: string): string {
  return `${pod.metadata?.name ?? ''}-${volumeName}`;
}

/** The names of the claims the pod's volumes use, in the pod's namespace. */
export function podClaimNames(pod: Pod): string[] {
  const names: string[] = [];
  for (const volume of pod.spec.volumes ?? []) {
    const claim = volume.persistentVolumeClaim?.claimName;
    if (claim) names.push(claim);
    else if (volume.ephemeral) names.push(ephemeralClaimName(pod, volume.name));
  }
  return names;
}

export function podClaimIndexFunc(pod: Pod): readonly string[] {
  const namespace = pod.metadata?.namespace ?? '';
  return podClaimNames(pod).map((name) => `${namespace}/${name}`);
}

export const podClaimIndex = cacheIndex(BUILTIN_RESOURCES.pods, POD_CLAIM_INDEX, podClaimIndexFunc);

/** Whether the pod has ended (Succeeded or Failed): it no longer uses its claims. */
export function isPodTerminated(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}
