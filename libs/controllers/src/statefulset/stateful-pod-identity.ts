import {
  STATEFUL_SET_POD_INDEX_LABEL,
  STATEFUL_SET_POD_NAME_LABEL,
  type Pod,
  type PersistentVolumeClaimTemplate,
  type StatefulSet,
  type Volume,
} from '@svc/api';
import { podFromTemplate, type ControllerKind } from '../common/pod-from-template';

/** A StatefulSet's kind, as its pods' and revisions' controller references name it. */
export const STATEFUL_SET_KIND: ControllerKind = { apiVersion: 'apps/v1', kind: 'StatefulSet' };

/** The label with the name of the ControllerRevision a StatefulSet's pod was made from (Kubernetes' StatefulSetRevisionLabel). */
export const STATEFUL_SET_REVISION_LABEL = 'controller-revision-hash';

/** The ordinal of the StatefulSet's first pod (`spec.ordinals.start`, 0 by default). */
export function startOrdinal(set: StatefulSet): number {
  return set.spec.ordinals?.start ?? 0;
}

/** `<set>-<ordinal>`. */
export function statefulPodName(set: StatefulSet, ordinal: number): string {
  return `${set.metadata?.name ?? ''}-${ordinal}`;
}

const ORDINAL_SUFFIX = /^(.*)-([0-9]+)$/;

/** The parent name and ordinal a pod's name gives (`web-2` -> web, 2); ordinal -1 when it gives none. */
export function parentAndOrdinal(pod: Pod): { parent: string; ordinal: number } {
  const match = ORDINAL_SUFFIX.exec(pod.metadata?.name ?? '');
  if (!match) return { parent: '', ordinal: -1 };
  const ordinal = Number(match[2]);
  return Number.isSafeInteger(ordinal) && ordinal <= 0x7fffffff ? { parent: match[1], ordinal } : { parent: '', ordinal: -1 };
}

/** The pod's ordinal, -1 when its name has none. */
export function podOrdinal(pod: Pod): number {
  return parentAndOrdinal(pod).ordinal;
}

/** Whether the pod's name makes it one of the set's pods (Kubernetes' isMemberOf): only such pods are adopted. */
export function isMemberOf(set: StatefulSet, pod: Pod): boolean {
  return parentAndOrdinal(pod).parent === set.metadata?.name;
}

/** The revision a pod was made from (its `controller-revision-hash` label). */
export function podRevision(pod: Pod): string {
  return pod.metadata?.labels?.[STATEFUL_SET_REVISION_LABEL] ?? '';
}

/**
 * Whether the pod has the name, namespace and pod-name label its ordinal gives (Kubernetes'
 * identityMatches; like it, a pod without the pod-index label is left so).
 */
export function identityMatches(set: StatefulSet, pod: Pod): boolean {
  const { parent, ordinal } = parentAndOrdinal(pod);
  const labels = pod.metadata?.labels ?? {};
  return (
    ordinal >= 0 &&
    parent === set.metadata?.name &&
    pod.metadata?.name === statefulPodName(set, ordinal) &&
    pod.metadata?.namespace === set.metadata?.namespace &&
    labels[STATEFUL_SET_POD_NAME_LABEL] === pod.metadata?.name
  );
}

/** Gives the pod the identity labels of its ordinal (Kubernetes' updateIdentity); `pod` is a working copy. */
export function updateIdentity(set: StatefulSet, pod: Pod, ordinal = podOrdinal(pod)): void {
  const name = statefulPodName(set, ordinal);
  pod.metadata = { ...pod.metadata, name, namespace: set.metadata?.namespace };
  pod.metadata.labels = { ...pod.metadata.labels, [STATEFUL_SET_POD_NAME_LABEL]: name, [STATEFUL_SET_POD_INDEX_LABEL]: String(ordinal) };
}

/** The claim made from `template` for the pod of `ordinal`: `<template>-<set>-<ordinal>` (Kubernetes' getPersistentVolumeClaimName). */
export function claimName(set: StatefulSet, template: PersistentVolumeClaimTemplate, ordinal: number): string {
  return `${template.metadata?.name ?? ''}-${statefulPodName(set, ordinal)}`;
}

/**
 * The claims the pod of `ordinal` mounts, keyed by template name, made from the set's templates with
 * the set's selector labels (Kubernetes' getPersistentVolumeClaims).
 */
export function podClaims(set: StatefulSet, ordinal: number): Map<string, PersistentVolumeClaimTemplate> {
  const claims = new Map<string, PersistentVolumeClaimTemplate>();
  for (const template of set.spec.volumeClaimTemplates ?? []) {
    const claim = structuredClone(template);
    claim.metadata = {
      ...claim.metadata,
      name: claimName(set, template, ordinal),
      namespace: set.metadata?.namespace,
      labels: { ...claim.metadata?.labels, ...set.spec.selector.matchLabels },
    };
    delete claim.status;
    claims.set(template.metadata?.name ?? '', claim);
  }
  return claims;
}

/**
 * Points the pod's volumes named as claim templates at the pod's own claims, keeping its other
 * volumes (Kubernetes' updateStorage); `pod` is a working copy.
 */
export function updateStorage(set: StatefulSet, pod: Pod, ordinal = podOrdinal(pod)): void {
  const claims = podClaims(set, ordinal);
  if (claims.size === 0) return;
  const volumes: Volume[] = [];
  for (const [name, claim] of claims) volumes.push({ name, persistentVolumeClaim: { claimName: claim.metadata?.name ?? '' } });
  for (const volume of pod.spec?.volumes ?? []) if (!claims.has(volume.name)) volumes.push(volume);
  pod.spec = { ...pod.spec, volumes };
}

/** Whether each of the pod's claim-template volumes mounts the pod's own claim (Kubernetes' storageMatches). */
export function storageMatches(set: StatefulSet, pod: Pod): boolean {
  const ordinal = podOrdinal(pod);
  if (ordinal < 0) return false;
  const volumes = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  for (const [name, claim] of podClaims(set, ordinal)) {
    const volume = volumes.get(name) as { persistentVolumeClaim?: { claimName?: string } } | undefined;
    if (volume?.persistentVolumeClaim?.claimName !== claim.metadata?.name) return false;
  }
  return true;
}

/**
 * The pod of `ordinal` as `set` makes it (Kubernetes' newStatefulSetPod): the template's labels,
 * annotations and spec, the set as controller, its stable name, the identity labels, hostname and
 * subdomain (the governing Service, so that `<pod>.<service>` names it), volumes for its claims,
 * and the revision label.
 */
export function newStatefulPod(set: StatefulSet, ordinal: number, revision: string): Pod {
  const pod = podFromTemplate(set, STATEFUL_SET_KIND);
  delete pod.metadata!.generateName;
  updateIdentity(set, pod, ordinal);
  pod.spec = { ...pod.spec, hostname: pod.metadata!.name };
  if (set.spec.serviceName) pod.spec.subdomain = set.spec.serviceName;
  updateStorage(set, pod, ordinal);
  pod.metadata!.labels = { ...pod.metadata!.labels, [STATEFUL_SET_REVISION_LABEL]: revision };
  return pod;
}
