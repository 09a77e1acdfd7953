import { FieldPath } from './field-path';
import { goQuote } from './go-quote';
import { LabelRequirement, SelectionOperator } from './label-requirement';
import type { LabelSelector } from './meta/label-selector';
import { parseLabelRequirements } from './label-selector-parser';
import { newBadRequest } from './status-errors';

function byKey(a: LabelRequirement, b: LabelRequirement): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

const OPERATORS_OF_OBJECT: Readonly<Record<string, SelectionOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/**
 * A label selector ready to match: the AND of its requirements, kept sorted by key.
 * Build one with `parse`, `fromSet`, `fromLabelSelector`, `everything` or `nothing`.
 */
export class LabelQuery {
  private static readonly EVERYTHING = new LabelQuery([], false);
  private static readonly NOTHING = new LabelQuery([], true);

  private constructor(
    private readonly reqs: readonly LabelRequirement[],
    private readonly none: boolean,
  ) {}

  /** Matches every label set. */
  static everything(): LabelQuery {
    return LabelQuery.EVERYTHING;
  }

  /** Matches no label set (what a missing selector object means). */
  static nothing(): LabelQuery {
    return LabelQuery.NOTHING;
  }

  /**
   * Parses `a=b,c!=d,e in (x,y),!f,g`. The empty string means everything. Throws a 400
   * BadRequest with Kubernetes' message when the string is malformed or a key or value is invalid.
   */
  static parse(selector: string, path?: FieldPath): LabelQuery {
    const reqs = parseLabelRequirements(selector, path);
    return reqs.length === 0 ? LabelQuery.EVERYTHING : new LabelQuery(reqs, false);
  }

  /** Exactly these labels (`k=v` for each); an empty map means everything. Validates keys and values. */
  static fromSet(labels: Readonly<Record<string, string>> | undefined): LabelQuery {
    const entries = Object.entries(labels ?? {});
    if (entries.length === 0) return LabelQuery.EVERYTHING;
    return new LabelQuery(entries.map(([k, v]) => LabelRequirement.create(k, '=', [v])).sort(byKey), false);
  }

  /**
   * The query of a LabelSelector object: a missing object selects nothing, an empty one
   * everything. Throws a 400 BadRequest for an unknown operator or a bad key, value or value count.
   */
  static fromLabelSelector(selector: LabelSelector | null | undefined): LabelQuery {
    if (!selector) return LabelQuery.NOTHING;
    const labels = Object.entries(selector.matchLabels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const exprs = selector.matchExpressions ?? [];
    if (labels.length + exprs.length === 0) return LabelQuery.EVERYTHING;
    const reqs: LabelRequirement[] = labels.map(([k, v]) => LabelRequirement.create(k, '=', [v]));
    for (const expr of exprs) {
      const op = Object.hasOwn(OPERATORS_OF_OBJECT, expr.operator) ? OPERATORS_OF_OBJECT[expr.operator] : undefined;
      if (!op) throw newBadRequest(`${goQuote(String(expr.operator))} is not a valid label selector operator`);
      reqs.push(LabelRequirement.create(expr.key, op, expr.values ?? []));
    }
    return new LabelQuery(reqs.sort(byKey), false);
  }

  get requirements(): readonly LabelRequirement[] {
    return this.reqs;
  }

  /** True when the query does not restrict anything. */
  isEmpty(): boolean {
    return !this.none && this.reqs.length === 0;
  }

  matchesNothing(): boolean {
    return this.none;
  }

  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    if (this.none) return false;
    return this.reqs.every((r) => r.matches(labels));
  }

  /** A new query with more requirements. */
  add(...requirements: LabelRequirement[]): LabelQuery {
    if (this.none) return this;
    return new LabelQuery([...this.reqs, ...requirements].sort(byKey), false);
  }

  /** The single value a key must have (`k=v`, `k==v`, `k in (v)`), if the query pins one. */
  requiresExactMatch(key: string): string | undefined {
    const r = this.reqs.find((req) => req.key === key);
    if (!r) return undefined;
    return (r.operator === '=' || r.operator === '==' || r.operator === 'in') && r.values.length === 1 ? r.values[0] : undefined;
  }

  /** The canonical string: requirements by key, joined by `,`. Both everything and nothing print as `''`. */
  toString(): string {
    return this.reqs.map((r) => r.toString()).join(',');
  }
}
