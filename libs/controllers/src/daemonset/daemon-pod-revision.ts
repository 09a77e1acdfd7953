import { DAEMON_SET_TEMPLATE_GENERATION_ANNOTATION, DAEMON_SET_TEMPLATE_GENERATION_LABEL, type DaemonSet, type Pod, type PodTemplateSpec } from '@svc/api';
import { withDaemonPodTolerations } from './daemon-pod-tolerations';

/** The label of a daemon pod and of a ControllerRevision with the hash of the revision (apps/v1's DefaultDaemonSetUniqueLabelKey). */
export const DAEMON_SET_REVISION_HASH_LABEL = 'controller-revision-hash';

/**
 * The DaemonSet's template generation, from the annotation the API server keeps (Kubernetes'
 * GetTemplateGeneration); undefined when absent or unreadable, and then pods are told apart by hash alone.
 */
export function templateGeneration(ds: DaemonSet): number | undefined {
  const value = ds.metadata?.annotations?.[DAEMON_SET_TEMPLATE_GENERATION_ANNOTATION];
  if (value === undefined) return undefined;
  const generation = Number(value);
  return /^-?[0-9]+$/.test(value) && Number.isSafeInteger(generation) ? generation : undefined;
}

/**
 * Kubernetes' IsPodUpdated: a pod is of the current revision when its hash label is the revision's,
 * or (pods made before revisions were kept) its template generation label is the DaemonSet's.
 */
export function isPodUpdated(pod: Pod, hash: string, generation: number | undefined): boolean {
  const labels = pod.metadata?.labels ?? {};
  const generationMatches = generation !== undefined && labels[DAEMON_SET_TEMPLATE_GENERATION_LABEL] === String(generation);
  const hashMatches = hash.length > 0 && labels[DAEMON_SET_REVISION_HASH_LABEL] === hash;
  return hashMatches || generationMatches;
}

/**
 * Kubernetes' CreatePodTemplate: the template the DaemonSet's pods are made from, with the daemon
 * tolerations and the labels of the revision and template generation it belongs to.
 */
export function daemonPodTemplate(ds: DaemonSet, hash: string): PodTemplateSpec {
  const template = structuredClone(ds.spec.template);
  const labels: Record<string, string> = { ...template.metadata?.labels };
  const generation = templateGeneration(ds);
  if (generation !== undefined) labels[DAEMON_SET_TEMPLATE_GENERATION_LABEL] = String(generation);
  if (hash.length > 0) labels[DAEMON_SET_REVISION_HASH_LABEL] = hash;
  return { ...template, metadata: { ...template.metadata, labels }, spec: withDaemonPodTolerations(template.spec ?? { containers: [] }) };
}
