import type { Node, Pod } from '@svc/api';
import { LabelQuery, LabelRequirement, type SelectionOperator, isRecord } from '@svc/machinery';

/**
 * The scheduling parts of a pod's `spec.affinity`, read defensively: the schema keeps `affinity`
 * free-form, so anything here may be malformed. A term that cannot be read matches nothing, as
 * Kubernetes' lazy-error node selectors do, and never throws.
 */

type Json = Record<string, unknown>;

function records(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

const NODE_OPERATORS: Readonly<Record<string, SelectionOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
  Gt: 'gt',
  Lt: 'lt',
};

/** One node selector term: the AND of its expressions on labels and its fields (`metadata.name`). */
export class NodeSelectorTerm {
  private constructor(
    private readonly labels: readonly LabelRequirement[],
    private readonly names: readonly LabelRequirement[],
    private readonly readable: boolean,
  ) {}

  static of(term: unknown): NodeSelectorTerm {
    if (!isRecord(term)) return new NodeSelectorTerm([], [], false);
    try {
      const labels = records(term.matchExpressions).map((e) => requirement(e));
      const names = records(term.matchFields).map((e) => {
        if (e.key !== 'metadata.name' || (e.operator !== 'In' && e.operator !== 'NotIn')) throw new Error('unsupported field');
        return LabelRequirement.unchecked('metadata.name', NODE_OPERATORS[e.operator], strings(e.values));
      });
      return new NodeSelectorTerm(labels, names, true);
    } catch {
      return new NodeSelectorTerm([], [], false);
    }
  }

  /** An empty or unreadable term matches no node. */
  matches(node: Node): boolean {
    if (!this.readable || this.labels.length + this.names.length === 0) return false;
    const labels = node.metadata?.labels;
    if (!this.labels.every((r) => r.matches(labels))) return false;
    const fields = { 'metadata.name': node.metadata?.name ?? '' };
    return this.names.every((r) => r.matches(fields));
  }
}

function requirement(expression: Json): LabelRequirement {
  const operator = typeof expression.operator === 'string' ? NODE_OPERATORS[expression.operator] : undefined;
  if (operator === undefined || typeof expression.key !== 'string') throw new Error('unreadable requirement');
  return LabelRequirement.create(expression.key, operator, strings(expression.values));
}

/** What a pod requires of its node: its nodeSelector and its required node affinity (any one of the terms). */
export class RequiredNodeAffinity {
  private constructor(
    private readonly selector: Readonly<Record<string, string>>,
    private readonly terms: readonly NodeSelectorTerm[] | undefined,
  ) {}

  static of(pod: Pod): RequiredNodeAffinity {
    const selector = isRecord(pod.spec.nodeSelector) ? pod.spec.nodeSelector : {};
    const affinity = isRecord(pod.spec.affinity) ? pod.spec.affinity : {};
    const nodeAffinity = isRecord(affinity.nodeAffinity) ? affinity.nodeAffinity : {};
    const required = nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution;
    const terms = isRecord(required)
      ? Array.isArray(required.nodeSelectorTerms)
        ? required.nodeSelectorTerms.map((t) => NodeSelectorTerm.of(t))
        : []
      : undefined;
    return new RequiredNodeAffinity(selector, terms);
  }

  matches(node: Node): boolean {
    const labels = node.metadata?.labels ?? {};
    for (const [key, value] of Object.entries(this.selector)) if (labels[key] !== value) return false;
    return this.terms === undefined || this.terms.some((t) => t.matches(node));
  }
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
