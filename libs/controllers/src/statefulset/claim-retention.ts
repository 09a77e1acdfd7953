import type { OwnerReference, Pod, StatefulSet } from '@svc/api';
import { STATEFUL_SET_KIND } from './stateful-pod-identity';

type Owned = { metadata?: { ownerReferences?: OwnerReference[] } };

function policyOf(set: StatefulSet): { whenDeleted: string; whenScaled: string } {
  const policy = set.spec.persistentVolumeClaimRetentionPolicy;
  return { whenDeleted: policy?.whenDeleted ?? 'Retain', whenScaled: policy?.whenScaled ?? 'Retain' };
}

/** Whether the pod's ordinal is within the set's range (from `spec.ordinals.start`, `replicas` of them). */
export function ordinalInRange(set: StatefulSet, ordinal: number): boolean {
  const start = set.spec.ordinals?.start ?? 0;
  return ordinal >= start && ordinal < start + (set.spec.replicas ?? 1);
}

/**
 * The owner references a claim of the pod should carry under the set's retention policy
 * (Kubernetes' updateClaimOwnerRefForSetAndPod): the set owns it when `whenDeleted` is Delete, the
 * pod owns it once scaled down when `whenScaled` is Delete (and then the set no longer does, so the
 * garbage collector removes it with the pod); Retain takes either reference away. Other owners are
 * kept. Undefined when the claim already carries the right ones.
 */
export function retentionOwnerReferences(set: StatefulSet, pod: Pod, claim: Owned, scaledDown: boolean): OwnerReference[] | undefined {
  const { whenDeleted, whenScaled } = policyOf(set);
  const setUid = set.metadata?.uid ?? '';
  const podUid = pod.metadata?.uid ?? '';
  const wantSet = whenDeleted === 'Delete' && !(whenScaled === 'Delete' && scaledDown);
  const wantPod = whenScaled === 'Delete' && scaledDown && podUid !== '';
  const refs = claim.metadata?.ownerReferences ?? [];
  const hasSet = refs.some((r) => r.uid === setUid);
  const hasPod = podUid !== '' && refs.some((r) => r.uid === podUid);
  // A reference to an earlier set or pod of the same name is replaced, as Kubernetes matches by uid.
  const staleSet = refs.some((r) => r.kind === 'StatefulSet' && r.name === set.metadata?.name && r.uid !== setUid);
  if (hasSet === wantSet && hasPod === wantPod && !staleSet) return undefined;
  const next = refs.filter((r) => r.uid !== setUid && r.uid !== podUid && !(r.kind === 'StatefulSet' && r.name === set.metadata?.name));
  if (wantSet) next.push({ ...STATEFUL_SET_KIND, name: set.metadata?.name ?? '', uid: setUid });
  if (wantPod) next.push({ apiVersion: 'v1', kind: 'Pod', name: pod.metadata?.name ?? '', uid: podUid });
  return next;
}

/**
 * Kubernetes' PodClaimIsStale: under `whenScaled: Delete`, a claim still owned by an earlier pod of the
 * ordinal is on its way out with that pod, and must not be taken by the new one.
 */
export function claimIsStale(set: StatefulSet, pod: Pod, claim: Owned): boolean {
  if (policyOf(set).whenScaled !== 'Delete') return false;
  return (claim.metadata?.ownerReferences ?? []).some((r) => r.kind === 'Pod' && r.name === pod.metadata?.name && r.uid !== pod.metadata?.uid);
}
