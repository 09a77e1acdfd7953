import {
  isDefaultStorageClass,
  NodeSelectorTerm,
  quantityNanoValue,
  storageClassOf,
  type Node,
  type PersistentVolume,
  type PersistentVolumeClaim,
  type StorageClass,
} from '@svc/api';
import { LabelQuery } from '@svc/machinery';
import { ANN_BETA_STORAGE_CLASS, ANN_SELECTED_NODE } from './volume-annotations';

/**
 * What Kubernetes' storage helpers (component-helpers/storage/volume) decide about claims, volumes and
 * classes: which class each has, whether a volume is bound to a claim, and which volume fits a claim
 * best. The persistent volume controller and the scheduler's volume binding share them.
 */

/** The claim's class: the beta annotation wins over `spec.storageClassName`; "" is no class. */
export function claimClass(claim: PersistentVolumeClaim): string {
  return storageClassOf(claim);
}

/** Whether the claim names a class at all (an explicit "" counts: it asks for no class). */
export function claimHasClass(claim: PersistentVolumeClaim): boolean {
  return claim.metadata?.annotations?.[ANN_BETA_STORAGE_CLASS] !== undefined || claim.spec?.storageClassName !== undefined;
}

/** The volume's class, read as the claim's is. */
export function volumeClass(volume: PersistentVolume): string {
  return storageClassOf(volume);
}

/** The claim's `namespace/name`. */
export function claimKey(claim: PersistentVolumeClaim): string {
  return `${claim.metadata?.namespace ?? ''}/${claim.metadata?.name ?? ''}`;
}

/** Whether the volume's claimRef names this claim (a claimRef without uid is a reservation for any claim of the name). */
export function isVolumeBoundToClaim(volume: PersistentVolume, claim: PersistentVolumeClaim): boolean {
  const ref = volume.spec?.claimRef;
  if (!ref) return false;
  if (ref.name !== claim.metadata?.name || (ref.namespace ?? '') !== (claim.metadata?.namespace ?? '')) return false;
  return !ref.uid || ref.uid === claim.metadata?.uid;
}

/** Whether the volume's claimRef names exactly this claim, uid included. */
export function refersToClaim(volume: PersistentVolume, claim: PersistentVolumeClaim): boolean {
  const ref = volume.spec?.claimRef;
  const meta = claim.metadata ?? {};
  return ref !== undefined && ref.name === meta.name && ref.namespace === meta.namespace && ref.uid === meta.uid;
}

/** The claimRef a volume bound to this claim carries (Kubernetes' reference to the claim at its current version). */
export function claimReference(claim: PersistentVolumeClaim): NonNullable<NonNullable<PersistentVolume['spec']>['claimRef']> {
  const meta = claim.metadata ?? {};
  return { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: meta.namespace, name: meta.name, uid: meta.uid, resourceVersion: meta.resourceVersion };
}

/** Whether claim and volume disagree on Filesystem or Block (each Filesystem when unset). */
export function volumeModeMismatch(claim: PersistentVolumeClaim, volume: PersistentVolume): boolean {
  return (claim.spec?.volumeMode ?? 'Filesystem') !== (volume.spec?.volumeMode ?? 'Filesystem');
}

/** Whether the volume offers every access mode the claim asks for. */
export function checkAccessModes(claim: PersistentVolumeClaim, volume: PersistentVolume): boolean {
  const offered = new Set(volume.spec?.accessModes ?? []);
  return (claim.spec?.accessModes ?? []).every((mode) => offered.has(mode));
}

/** The storage the claim asks for, in nano units (0 when it asks for none). */
export function requestedStorage(claim: PersistentVolumeClaim): bigint {
  return quantityNanoValue(claim.spec?.resources?.requests?.storage) ?? 0n;
}

/** The storage the volume holds, in nano units (-1 when it says none, so it fits nothing). */
export function volumeStorage(volume: PersistentVolume): bigint {
  return quantityNanoValue(volume.spec?.capacity?.storage) ?? -1n;
}

/**
 * Whether the node can reach the volume: a volume without node affinity is reachable from everywhere,
 * one with it from the nodes one of its terms matches (Kubernetes' CheckNodeAffinity).
 */
export function volumeNodeAffinityMatches(volume: PersistentVolume, node: Node): boolean {
  const required = volume.spec?.nodeAffinity?.required;
  if (!required) return true;
  const terms = (required as { nodeSelectorTerms?: unknown }).nodeSelectorTerms;
  if (!Array.isArray(terms)) return false;
  return terms.some((term) => NodeSelectorTerm.of(term).matches(node));
}

/** The claim's selector of volumes; undefined when it has none, null when it cannot be read (it then matches nothing). */
function claimSelector(claim: PersistentVolumeClaim): LabelQuery | undefined | null {
  if (!claim.spec?.selector) return undefined;
  try {
    return LabelQuery.fromLabelSelector(claim.spec.selector);
  } catch {
    return null;
  }
}

/**
 * The volume that fits the claim (Kubernetes' FindMatchingVolume): a volume already bound or
 * reserved for it wins outright (unless the node cannot reach it: then nothing fits); otherwise the
 * smallest Available volume of the claim's class, size, mode and selector. Without a node (the
 * controller's path) a claim of a WaitForFirstConsumer class binds only its reserved volume, and
 * access modes are left to the caller's grouping; with one (the scheduler's) the volume must be
 * reachable from it and offer the claim's access modes.
 */
export function findMatchingVolume(
  claim: PersistentVolumeClaim,
  volumes: readonly PersistentVolume[],
  node: Node | undefined,
  excluded: ReadonlySet<string>,
  delayBinding: boolean,
): PersistentVolume | undefined {
  const requested = requestedStorage(claim);
  const requestedClass = claimClass(claim);
  const selector = claimSelector(claim);
  let smallest: PersistentVolume | undefined;
  let smallestSize = 0n;
  for (const volume of volumes) {
    if (excluded.has(volume.metadata?.name ?? '')) continue;
    const boundToClaim = isVolumeBoundToClaim(volume, claim);
    if (volume.spec?.claimRef && !boundToClaim) continue;
    const size = volumeStorage(volume);
    if (size < requested) continue;
    if (volumeModeMismatch(claim, volume)) continue;
    if (volume.metadata?.deletionTimestamp) continue;
    const reachable = node === undefined || volumeNodeAffinityMatches(volume, node);
    if (boundToClaim) return reachable ? volume : undefined;
    if (node === undefined && delayBinding) continue;
    if (volume.status?.phase !== 'Available') continue;
    if (selector === null || (selector && !selector.matches(volume.metadata?.labels))) continue;
    if (volumeClass(volume) !== requestedClass) continue;
    if (!reachable) continue;
    if (node !== undefined && !checkAccessModes(claim, volume)) continue;
    if (smallest === undefined || size < smallestSize) {
      smallest = volume;
      smallestSize = size;
    }
  }
  return smallest;
}

/**
 * The controller's choice (Kubernetes' findByClaim over its access-mode index): volumes are grouped by
 * their set of access modes; the groups that offer every mode the claim asks for are searched from the
 * fewest modes up, so a claim for ReadWriteOnce takes a ReadWriteOnce volume before a volume that
 * also offers ReadOnlyMany, and within a group the smallest fitting one.
 */
export function findBestMatchForClaim(claim: PersistentVolumeClaim, volumes: readonly PersistentVolume[], delayBinding: boolean): PersistentVolume | undefined {
  const groups = new Map<string, { modes: number; volumes: PersistentVolume[] }>();
  for (const volume of volumes) {
    const modes = [...new Set(volume.spec?.accessModes ?? [])].sort();
    const key = modes.join(',');
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { modes: modes.length, volumes: [] }));
    group.volumes.push(volume);
  }
  const wanted = claim.spec?.accessModes ?? [];
  const candidates = [...groups.entries()]
    .filter(([key]) => {
      const offered = new Set(key === '' ? [] : key.split(','));
      return wanted.every((mode) => offered.has(mode));
    })
    .sort(([a, x], [b, y]) => x.modes - y.modes || (a < b ? -1 : a > b ? 1 : 0));
  for (const [, group] of candidates) {
    const found = findMatchingVolume(claim, group.volumes, undefined, new Set(), delayBinding);
    if (found) return found;
  }
  return undefined;
}

/**
 * Why a volume the claim names in `volumeName` cannot be bound to it (Kubernetes'
 * checkVolumeSatisfyClaim); undefined when it can.
 */
export function volumeUnfitFor(volume: PersistentVolume, claim: PersistentVolumeClaim): string | undefined {
  if (volume.metadata?.deletionTimestamp) return `the volume is marked for deletion "${volume.metadata?.name ?? ''}"`;
  if (volumeStorage(volume) < requestedStorage(claim)) return 'requested PV is too small';
  if (volumeClass(volume) !== claimClass(claim)) return 'storageClassName does not match';
  if (volumeModeMismatch(claim, volume)) return 'incompatible volumeMode';
  if (!checkAccessModes(claim, volume)) return 'incompatible accessMode';
  return undefined;
}

/** The default class; of several, the newest (then the first by name), as Kubernetes' GetDefaultClass picks. */
export function defaultStorageClass(classes: readonly StorageClass[]): StorageClass | undefined {
  const defaults = classes.filter((c) => isDefaultStorageClass(c));
  defaults.sort((a, b) => {
    const at = (c: StorageClass) => Date.parse(c.metadata?.creationTimestamp ?? '') || 0;
    if (at(a) !== at(b)) return at(b) - at(a);
    const [x, y] = [a.metadata?.name ?? '', b.metadata?.name ?? ''];
    return x < y ? -1 : x > y ? 1 : 0;
  });
  return defaults[0];
}

/** Whether the class waits for the first consumer (an unknown class does not). */
export function isDelayBindingClass(storageClass: StorageClass | undefined): boolean {
  return storageClass?.volumeBindingMode === 'WaitForFirstConsumer';
}

/** Whether the scheduler already chose the claim's node, so it may be provisioned now. */
export function isDelayBindingProvisioning(claim: PersistentVolumeClaim): boolean {
  return !!claim.metadata?.annotations?.[ANN_SELECTED_NODE];
}
