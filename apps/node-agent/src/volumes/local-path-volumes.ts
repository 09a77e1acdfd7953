import { join } from 'node:path';
import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '@svc/api';

/** The name this node agent's provisioner answers to (a StorageClass's `provisioner`). */
export const LOCAL_PATH_PROVISIONER = 'svc.io/local-path';
export const ANN_SELECTED_NODE = 'volume.kubernetes.io/selected-node';
export const ANN_STORAGE_PROVISIONER = 'volume.kubernetes.io/storage-provisioner';
export const ANN_BETA_STORAGE_PROVISIONER = 'volume.beta.kubernetes.io/storage-provisioner';
export const ANN_PROVISIONED_BY = 'pv.kubernetes.io/provisioned-by';
export const LABEL_HOSTNAME = 'kubernetes.io/hostname';
/** The StorageClass parameter naming the node directory volumes are made in (the node's default otherwise). */
export const PARAMETER_NODE_PATH = 'nodePath';
/** The access modes a directory on one node can honour. */
const ACCESS_MODES = new Set(['ReadWriteOnce', 'ReadWriteOncePod']);

/** Why an Immediate claim waits when the cluster's Nodes are not known: the caller may learn them and decide again. */
export const NODES_UNKNOWN = 'an Immediate claim, and the nodes of the cluster are not known';

/** What the provisioner is to do with a claim, and why not when it does nothing. */
export type ClaimDecision = { provision: true } | { provision: false; reason: string };

/** The facts of the cluster the decision for a claim rests on. */
export interface ClaimFacts {
  nodeName: string;
  /** The claim's class, when it exists. */
  storageClass?: StorageClass;
  /** Whether a volume for the claim (`pvc-<uid>`) exists already. */
  volumeExists: boolean;
  /** The names of the cluster's Nodes, if known: an Immediate claim is provisioned here only when this is the only one. */
  nodeNames?: readonly string[];
}

/** The provisioner a claim asks for (the GA annotation, then the beta one), as external provisioners read it. */
export function claimProvisioner(claim: PersistentVolumeClaim): string | undefined {
  const annotations = claim.metadata?.annotations ?? {};
  return annotations[ANN_STORAGE_PROVISIONER] ?? annotations[ANN_BETA_STORAGE_PROVISIONER];
}

/** The name of the volume made for a claim, as external provisioners name it: `pvc-<claim uid>`. */
export function volumeNameFor(claim: PersistentVolumeClaim): string {
  return `pvc-${claim.metadata?.uid ?? ''}`;
}

/**
 * Whether this node's provisioner makes a volume for the claim (the external provisioner's
 * shouldProvision): a Pending claim with no volume, whose class and provisioner annotation name this
 * provisioner, and whose node is this one — the scheduler's `selected-node` for WaitForFirstConsumer;
 * for an Immediate class, this node when the cluster has no other (on several nodes a directory
 * cannot be placed without a pod to follow, so such a claim waits).
 */
export function decideClaim(claim: PersistentVolumeClaim, facts: ClaimFacts): ClaimDecision {
  if (claim.metadata?.deletionTimestamp) return { provision: false, reason: 'the claim is being deleted' };
  if (claim.spec?.volumeName) return { provision: false, reason: 'the claim names its volume' };
  if ((claim.status?.phase ?? 'Pending') !== 'Pending') return { provision: false, reason: `the claim is ${claim.status?.phase}` };
  if (claimProvisioner(claim) !== LOCAL_PATH_PROVISIONER) return { provision: false, reason: 'the claim asks for another provisioner' };
  const storageClass = facts.storageClass;
  if (!storageClass) return { provision: false, reason: `StorageClass "${claim.spec?.storageClassName ?? ''}" not found` };
  if (storageClass.provisioner !== LOCAL_PATH_PROVISIONER) return { provision: false, reason: 'the class names another provisioner' };
  if (facts.volumeExists) return { provision: false, reason: 'its volume exists already' };
  const selected = claim.metadata?.annotations?.[ANN_SELECTED_NODE];
  if (selected !== undefined) return selected === facts.nodeName ? { provision: true } : { provision: false, reason: `the claim is for node ${selected}` };
  if (storageClass.volumeBindingMode === 'WaitForFirstConsumer') return { provision: false, reason: 'no node selected yet' };
  if (!facts.nodeNames) return { provision: false, reason: NODES_UNKNOWN };
  if (facts.nodeNames.length === 1 && facts.nodeNames[0] === facts.nodeName) return { provision: true };
  return { provision: false, reason: 'an Immediate claim with several nodes: no node to place it on' };
}

/** Why a claim's volume cannot be made at all (a ProvisioningFailed event), or undefined. */
export function claimProblem(claim: PersistentVolumeClaim, storageClass: StorageClass): string | undefined {
  for (const key of Object.keys(storageClass.parameters ?? {}))
    if (key !== PARAMETER_NODE_PATH) return `invalid StorageClass parameter "${key}": ${LOCAL_PATH_PROVISIONER} knows only "${PARAMETER_NODE_PATH}"`;
  const nodePath = storageClass.parameters?.[PARAMETER_NODE_PATH];
  if (nodePath !== undefined && !nodePath.startsWith('/')) return `StorageClass parameter "${PARAMETER_NODE_PATH}" must be an absolute path, not "${nodePath}"`;
  if (claim.spec?.volumeMode === 'Block') return `${LOCAL_PATH_PROVISIONER} makes Filesystem volumes only, not Block`;
  const modes = claim.spec?.accessModes ?? [];
  const unsupported = modes.filter((mode) => !ACCESS_MODES.has(mode));
  if (unsupported.length > 0) return `${LOCAL_PATH_PROVISIONER} supports only ReadWriteOnce and ReadWriteOncePod access modes, not ${unsupported.join(', ')}`;
  if (!claim.spec?.resources?.requests?.storage) return 'the claim requests no storage';
  return undefined;
}

/** The node directory a claim's volume lives in: `<base>/pvc-<uid>_<namespace>_<name>`. */
export function directoryFor(claim: PersistentVolumeClaim, storageClass: StorageClass, defaultBase: string): string {
  const base = storageClass.parameters?.[PARAMETER_NODE_PATH] ?? defaultBase;
  return join(base, `${volumeNameFor(claim)}_${claim.metadata?.namespace ?? 'default'}_${claim.metadata?.name ?? ''}`);
}

/**
 * The PersistentVolume of a claim's new directory: a `local` volume (so the kubelet's rules for local
 * volumes hold: it must carry node affinity, and fsGroup owns it) tied to this node, bound in advance
 * to the claim through claimRef (the volume controller completes the binding), with the class's
 * reclaim policy and mount options and the claim's size and access modes.
 */
export function volumeFor(claim: PersistentVolumeClaim, storageClass: StorageClass, nodeName: string, path: string): PersistentVolume {
  const meta = claim.metadata ?? {};
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: volumeNameFor(claim), annotations: { [ANN_PROVISIONED_BY]: LOCAL_PATH_PROVISIONER } },
    spec: {
      capacity: { storage: claim.spec?.resources?.requests?.storage ?? '0' },
      accessModes: [...(claim.spec?.accessModes ?? ['ReadWriteOnce'])],
      persistentVolumeReclaimPolicy: storageClass.reclaimPolicy ?? 'Delete',
      storageClassName: storageClass.metadata?.name ?? '',
      ...(storageClass.mountOptions?.length ? { mountOptions: [...storageClass.mountOptions] } : {}),
      volumeMode: 'Filesystem',
      claimRef: {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        namespace: meta.namespace ?? 'default',
        name: meta.name ?? '',
        uid: meta.uid ?? '',
        resourceVersion: meta.resourceVersion ?? '',
      },
      local: { path },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: LABEL_HOSTNAME, operator: 'In', values: [nodeName] }] }] } },
    },
  };
}

/** The node a volume's required node affinity ties it to (`kubernetes.io/hostname In [node]`), if one. */
export function volumeNode(volume: PersistentVolume): string | undefined {
  for (const term of volume.spec?.nodeAffinity?.required?.nodeSelectorTerms ?? [])
    for (const expression of term.matchExpressions ?? [])
      if (expression.key === LABEL_HOSTNAME && expression.operator === 'In' && expression.values?.length === 1) return expression.values[0];
  return undefined;
}

/**
 * Whether the volume is this node's to remove now (the external provisioner's shouldDelete): made by
 * this provisioner, on this node, Released, with reclaim policy Delete. Retain leaves it and its data.
 */
export function shouldDelete(volume: PersistentVolume, nodeName: string): boolean {
  return (
    volume.metadata?.annotations?.[ANN_PROVISIONED_BY] === LOCAL_PATH_PROVISIONER &&
    !volume.metadata?.deletionTimestamp &&
    volume.status?.phase === 'Released' &&
    volume.spec?.persistentVolumeReclaimPolicy === 'Delete' &&
    volumeNode(volume) === nodeName &&
    volume.spec?.local?.path !== undefined
  );
}
