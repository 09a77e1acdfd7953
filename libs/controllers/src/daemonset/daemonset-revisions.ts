import type { ControllerRevision, DaemonSet, Pod } from '@svc/api';
import { controllerReference } from '@svc/runtime';
import { computePodTemplateHash } from '../deployment/pod-template-hash';
import { equalRevision, sortControllerRevisions } from '../history';
import { DAEMON_SET_REVISION_HASH_LABEL } from './daemon-pod-revision';

/** The kind a DaemonSet's pods and revisions name as their controller. */
export const DAEMON_SET_KIND = { apiVersion: 'apps/v1', kind: 'DaemonSet' } as const;

/** A JSON value with the keys of every object sorted, as Go's encoding/json writes a map. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[key];
    if (member !== undefined) out[key] = sortedKeys(member);
  }
  return out;
}

/**
 * What a DaemonSet's revision records (Kubernetes' getPatch): a strategic merge patch that puts its
 * pod template back whole, `{"spec":{"template":{..., "$patch":"replace"}}}`. `kubectl rollout undo`
 * sends it as the patch of the DaemonSet; `kubectl rollout history --revision` applies it to show the template.
 */
export function revisionData(ds: DaemonSet): Record<string, unknown> {
  return sortedKeys({ spec: { template: { ...structuredClone(ds.spec.template), $patch: 'replace' } } }) as Record<string, unknown>;
}

/** Kubernetes' Match: the revision records the DaemonSet's current template. */
export function revisionMatches(ds: DaemonSet, revision: ControllerRevision): boolean {
  return equalRevision({ data: revisionData(ds), revision: 0 }, revision);
}

/** The hash naming the revision of the DaemonSet's current template (Kubernetes' ComputeHash with the collision count). */
export function currentRevisionHash(ds: DaemonSet): string {
  return computePodTemplateHash(ds.spec.template, ds.status?.collisionCount ?? undefined);
}

/** The revision of the current template, numbered `revision`, as the controller creates it (Kubernetes' snapshot). */
export function newRevision(ds: DaemonSet, revision: number): ControllerRevision {
  const hash = currentRevisionHash(ds);
  const annotations = ds.metadata?.annotations;
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: `${ds.metadata?.name ?? ''}-${hash}`,
      namespace: ds.metadata?.namespace,
      labels: { ...ds.spec.template.metadata?.labels, [DAEMON_SET_REVISION_HASH_LABEL]: hash },
      ...(annotations && Object.keys(annotations).length > 0 ? { annotations: { ...annotations } } : {}),
      ownerReferences: [controllerReference(ds, DAEMON_SET_KIND)],
    },
    data: revisionData(ds),
    revision,
  };
}

/**
 * Of several revisions of the current template (left by a collision or a crash), the one kept: the
 * newest (Kubernetes' dedupCurHistories).
 */
export function revisionToKeep(current: readonly ControllerRevision[]): ControllerRevision {
  const sorted = sortControllerRevisions(current);
  return sorted[sorted.length - 1];
}

/**
 * Kubernetes' cleanupHistory: the old revisions beyond `revisionHistoryLimit` to delete, oldest
 * first, never one a pod still carries the hash of (finished pods being deleted included).
 */
export function revisionsToCleanUp(old: readonly ControllerRevision[], limit: number, pods: readonly Pod[]): ControllerRevision[] {
  let toKill = old.length - limit;
  if (toKill <= 0) return [];
  const liveHashes = new Set<string>();
  for (const pod of pods) {
    const hash = pod.metadata?.labels?.[DAEMON_SET_REVISION_HASH_LABEL];
    if (hash) liveHashes.add(hash);
  }
  const victims: ControllerRevision[] = [];
  // Unlike the StatefulSet's truncation, the live revisions count towards the limit here, as in Kubernetes.
  for (const revision of sortControllerRevisions(old)) {
    if (toKill <= 0) break;
    if (liveHashes.has(revision.metadata?.labels?.[DAEMON_SET_REVISION_HASH_LABEL] ?? '')) continue;
    victims.push(revision);
    toKill--;
  }
  return victims;
}
