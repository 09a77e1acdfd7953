import { NodeSelectorTerm, type Pod } from '@svc/api';
import { LabelQuery, LabelRequirement, isRecord } from '@svc/machinery';

/**
 * The scheduling parts of a pod's `spec.affinity`, read defensively: the schema keeps `affinity`
 * free-form, so anything here may be malformed. A term that cannot be read matches nothing, as
 * Kubernetes' lazy-error node selectors do, and never throws. Node selector terms and the required
 * node affinity are `@svc/api`'s (the daemonset controller reads them too).
 */

export { NodeSelectorTerm, RequiredNodeAffinity } from '@svc/api';

type Json = Record<string, unknown>;

function records(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The preferred node affinity terms and their weights. */
export function preferredNodeTerms(pod: Pod): Array<{ weight: number; term: NodeSelectorTerm }> {
  const affinity = isRecord(pod.spec.affinity) ? pod.spec.affinity : {};
  const nodeAffinity = isRecord(affinity.nodeAffinity) ? affinity.nodeAffinity : {};
  return records(nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution)
    .filter((p) => typeof p.weight === 'number' && p.weight !== 0)
    .map((p) => ({ weight: p.weight as number, term: NodeSelectorTerm.of(p.preference) }));
}

/** A pod (anti-)affinity term, compiled: which pods it selects, in which namespaces, over which topology. */
export interface AffinityTerm {
  topologyKey: string;
  namespaces: ReadonlySet<string>;
  namespaceSelector: LabelQuery;
  selector: LabelQuery;
}

/** Labels of a namespace by name, for terms with a namespaceSelector. */
export type NamespaceLabels = (namespace: string) => Readonly<Record<string, string>> | undefined;

function selectorQuery(selector: unknown): LabelQuery {
  if (selector === undefined || selector === null) return LabelQuery.nothing();
  if (!isRecord(selector)) return LabelQuery.nothing();
  try {
    return LabelQuery.fromLabelSelector(selector);
  } catch {
    return LabelQuery.nothing();
  }
}

/**
 * Kubernetes' AffinityTerm of a pod: the namespaces listed, else (without a namespaceSelector) the
 * pod's own; `matchLabelKeys` and `mismatchLabelKeys` add the pod's own values of those labels.
 */
function compileTerm(term: Json, pod: Pod): AffinityTerm | undefined {
  if (typeof term.topologyKey !== 'string' || term.topologyKey === '') return undefined;
  const listed = strings(term.namespaces);
  const hasNamespaceSelector = term.namespaceSelector !== undefined && term.namespaceSelector !== null;
  const namespaces = new Set(listed.length === 0 && !hasNamespaceSelector ? [pod.metadata?.namespace ?? ''] : listed);
  let selector = selectorQuery(term.labelSelector);
  const labels = pod.metadata?.labels ?? {};
  try {
    for (const key of strings(term.matchLabelKeys)) if (key in labels) selector = selector.add(LabelRequirement.create(key, 'in', [labels[key]]));
    for (const key of strings(term.mismatchLabelKeys)) if (key in labels) selector = selector.add(LabelRequirement.create(key, 'notin', [labels[key]]));
  } catch {
    selector = LabelQuery.nothing();
  }
  return { topologyKey: term.topologyKey, namespaces, namespaceSelector: selectorQuery(term.namespaceSelector), selector };
}

function requiredTerms(pod: Pod, kind: 'podAffinity' | 'podAntiAffinity'): AffinityTerm[] {
  const affinity = isRecord(pod.spec.affinity) ? pod.spec.affinity : {};
  const section = isRecord(affinity[kind]) ? affinity[kind] : {};
  return records(section.requiredDuringSchedulingIgnoredDuringExecution)
    .map((t) => compileTerm(t, pod))
    .filter((t): t is AffinityTerm => t !== undefined);
}

export function requiredAffinityTerms(pod: Pod): AffinityTerm[] {
  return requiredTerms(pod, 'podAffinity');
}

export function requiredAntiAffinityTerms(pod: Pod): AffinityTerm[] {
  return requiredTerms(pod, 'podAntiAffinity');
}

/** Whether `term` selects `pod`: its namespace is one of the term's (listed or selected), and its labels match. */
export function termMatches(term: AffinityTerm, pod: Pod, namespaceLabels: NamespaceLabels): boolean {
  const namespace = pod.metadata?.namespace ?? '';
  if (!term.namespaces.has(namespace) && (term.namespaceSelector.matchesNothing() || !term.namespaceSelector.matches(namespaceLabels(namespace)))) return false;
  return term.selector.matches(pod.metadata?.labels);
}
