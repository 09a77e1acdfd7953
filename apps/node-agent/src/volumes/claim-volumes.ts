import { PERSISTENT_VOLUME_SOURCES, type PersistentVolume, type PersistentVolumeClaim, type Pod, type Volume } from '@svc/api';

/** Where a pod's claim (a `persistentVolumeClaim` or generic `ephemeral` volume) leads on this node. */
export interface ClaimVolume {
  /** The bound PersistentVolume's name. */
  volumeName: string;
  /** The bound volume's source on the node. */
  source: { kind: 'local'; path: string } | { kind: 'hostPath'; path: string; type: string };
  /** Read only for every container (the pod's claim source says so). */
  readOnly: boolean;
}

/** Reads claims and volumes from the API: undefined when there is none of the name. */
export interface ClaimReader {
  claim(namespace: string, name: string): Promise<PersistentVolumeClaim | undefined>;
  volume(name: string): Promise<PersistentVolume | undefined>;
}

/** A claim volume that cannot be mounted yet: the reason, in the kubelet's words. */
export class ClaimVolumeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClaimVolumeError';
  }
}

/** The claim a pod volume names: its own for `persistentVolumeClaim`, `<pod>-<volume>` for a generic ephemeral one. */
export function claimNameOf(pod: Pod, volume: Volume): string | undefined {
  if (volume.persistentVolumeClaim) return volume.persistentVolumeClaim.claimName;
  if (volume.ephemeral) return `${pod.metadata?.name ?? ''}-${volume.name}`;
  return undefined;
}

/**
 * The bound volume of a pod's claim, checked as the kubelet's desired-state populator checks it:
 * the claim must exist, not be being deleted, be Bound to a volume whose claimRef points back at
 * it, and (for an ephemeral volume) have been made for this pod. Only `local` and `hostPath`
 * volumes can be mounted by this agent.
 */
export async function resolveClaimVolume(pod: Pod, volume: Volume, reader: ClaimReader): Promise<ClaimVolume> {
  const namespace = pod.metadata?.namespace ?? 'default';
  const claimName = claimNameOf(pod, volume) ?? '';
  const where = `error processing PVC ${namespace}/${claimName}`;
  let claim: PersistentVolumeClaim | undefined;
  try {
    claim = await reader.claim(namespace, claimName);
  } catch (error) {
    throw new ClaimVolumeError(`${where}: failed to fetch PVC from API server: ${(error as Error).message}`);
  }
  if (!claim) throw new ClaimVolumeError(`${where}: failed to fetch PVC from API server: persistentvolumeclaims "${claimName}" not found`);
  if (volume.ephemeral) {
    const owner = claim.metadata?.ownerReferences?.find((ref) => ref.controller === true);
    if (owner?.kind !== 'Pod' || owner.uid !== pod.metadata?.uid)
      throw new ClaimVolumeError(`${where}: PVC ${namespace}/${claimName} was not created for pod ${namespace}/${pod.metadata?.name ?? ''} (pod is not owner)`);
  }
  if (claim.metadata?.deletionTimestamp) throw new ClaimVolumeError(`${where}: PVC is being deleted`);
  if (claim.status?.phase !== 'Bound') throw new ClaimVolumeError(`${where}: PVC is not bound`);
  const volumeName = claim.spec?.volumeName ?? '';
  if (!volumeName) throw new ClaimVolumeError(`${where}: PVC has empty pvc.Spec.VolumeName`);
  let bound: PersistentVolume | undefined;
  try {
    bound = await reader.volume(volumeName);
  } catch (error) {
    throw new ClaimVolumeError(`${where}: failed to fetch PV ${volumeName} from API server: ${(error as Error).message}`);
  }
  if (!bound) throw new ClaimVolumeError(`${where}: failed to fetch PV ${volumeName} from API server: persistentvolumes "${volumeName}" not found`);
  const claimRef = bound.spec?.claimRef;
  if (!claimRef)
    throw new ClaimVolumeError(`${where}: found PV object ${volumeName} but it has a nil pv.Spec.ClaimRef indicating it is not yet bound to the claim`);
  if (claimRef.uid !== claim.metadata?.uid)
    throw new ClaimVolumeError(
      `${where}: found PV object ${volumeName} but its pv.Spec.ClaimRef.UID ${claimRef.uid ?? ''} does not point to claim.UID ${claim.metadata?.uid ?? ''}`,
    );
  if (bound.spec?.volumeMode === 'Block' || claim.spec?.volumeMode === 'Block')
    throw new ClaimVolumeError(`${where}: volume ${volumeName} is a block volume, which this node agent does not map into containers`);
  const readOnly = volume.persistentVolumeClaim?.readOnly === true;
  if (bound.spec?.local) return { volumeName, source: { kind: 'local', path: bound.spec.local.path }, readOnly };
  if (bound.spec?.hostPath) return { volumeName, source: { kind: 'hostPath', path: bound.spec.hostPath.path, type: bound.spec.hostPath.type ?? '' }, readOnly };
  const sources: readonly string[] = PERSISTENT_VOLUME_SOURCES;
  const kinds = Object.keys(bound.spec ?? {}).filter((key) => sources.includes(key));
  throw new ClaimVolumeError(
    `${where}: volume ${volumeName} has a ${kinds.join(', ') || 'missing'} source, which this node agent cannot mount (local and hostPath only)`,
  );
}
