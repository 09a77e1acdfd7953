import { isRecord, LabelRequirement, type SelectionOperator } from '@svc/machinery';
import type { Node } from './node';
import type { Pod } from './pod';

/**
 * What a pod requires of its node (its nodeSelector and required node affinity), read defensively:
 * the schema keeps `affinity` free-form, so anything here may be malformed. A term that cannot be
 * read matches nothing, as Kubernetes' lazy-error node selectors do, and never throws. The scheduler
 * filters nodes with it, the daemonset controller decides with it where its pods belong.
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
