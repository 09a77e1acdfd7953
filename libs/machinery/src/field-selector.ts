import { newBadRequest } from './status-errors';

/** Fields every kind can be selected on. */
export const UNIVERSAL_SELECTABLE_FIELDS: readonly string[] = ['metadata.name', 'metadata.namespace'];

/** One term of a field selector; `==` is read as `=`. */
export interface FieldRequirement {
  readonly field: string;
  readonly operator: '=' | '!=';
  readonly value: string;
}

/** The value of a field of an object, or undefined when it has none (which compares as `''`). */
export type FieldValueLookup = (field: string) => string | undefined;

/** Rewrites a term, for example to map a legacy field name onto the stored one; throws to reject it. */
export type FieldTransform = (field: string, value: string) => [string, string];

/** Escapes `\`, `,` and `=` so a value survives a round trip through the selector syntax. */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** Inverse of escapeFieldValue; rejects unknown escapes and bare `,` or `=`. */
export function unescapeFieldValue(value: string): string {
  if (!/[\\,=]/.test(value)) return value;
  let out = '';
  let inSlash = false;
  for (const c of value) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') {
        throw newBadRequest(`invalid field selector: invalid escape sequence: \\${c}`);
      }
      out += c;
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=') {
      // Go prints the rune with %v, which is its code point.
      throw newBadRequest(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else out += c;
  }
  if (inSlash) throw newBadRequest('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Splits on commas that are not escaped; escapes stay in the terms. */
function splitTerms(selector: string): string[] {
  if (selector.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

/** The first operator in the term splits it; `!=` and `==` are tried before `=`. */
function splitTerm(term: string): [string, string, string] | undefined {
  for (let i = 0; i < term.length; i++) {
    const rest = term.slice(i);
    for (const op of ['!=', '==', '=']) {
      if (rest.startsWith(op)) return [term.slice(0, i), op, term.slice(i + op.length)];
    }
  }
  return undefined;
}

/**
 * A field selector ready to match: the AND of `field=value` and `field!=value` terms.
 * Build one with `parse`, `fromSet`, `everything` or `nothing`.
 */
export class FieldQuery {
  private static readonly EVERYTHING = new FieldQuery([], false);
  private static readonly NOTHING = new FieldQuery([], true);

  private constructor(
    private readonly terms: readonly FieldRequirement[],
    private readonly none: boolean,
  ) {}

  static everything(): FieldQuery {
    return FieldQuery.EVERYTHING;
  }

  static nothing(): FieldQuery {
    return FieldQuery.NOTHING;
  }

  /**
   * Parses `a=b,c!=d` (also `a==b`); `\,` `\=` `\\` escape those characters in values. The
   * empty string means everything. Throws a 400 BadRequest with Kubernetes' message.
   */
  static parse(selector: string): FieldQuery {
    const parts = splitTerms(selector).sort();
    const terms: FieldRequirement[] = [];
    for (const part of parts) {
      if (part === '') continue;
      const split = splitTerm(part);
      if (!split) throw newBadRequest(`invalid selector: '${selector}'; can't understand '${part}'`);
      const [field, op, rawValue] = split;
      terms.push({ field, operator: op === '!=' ? '!=' : '=', value: unescapeFieldValue(rawValue) });
    }
    return terms.length === 0 ? FieldQuery.EVERYTHING : new FieldQuery(terms, false);
  }

  /** `field=value` for every entry, sorted by field. */
  static fromSet(fields: Readonly<Record<string, string>>): FieldQuery {
    const keys = Object.keys(fields).sort();
    if (keys.length === 0) return FieldQuery.EVERYTHING;
    return new FieldQuery(
      keys.map((field) => ({ field, operator: '=', value: fields[field] })),
      false,
    );
  }

  /** The AND of several queries. */
  static and(...queries: FieldQuery[]): FieldQuery {
    if (queries.some((q) => q.none)) return FieldQuery.NOTHING;
    const terms = queries.flatMap((q) => q.terms);
    return terms.length === 0 ? FieldQuery.EVERYTHING : new FieldQuery(terms, false);
  }

  static oneTermEqual(field: string, value: string): FieldQuery {
    return new FieldQuery([{ field, operator: '=', value }], false);
  }

  static oneTermNotEqual(field: string, value: string): FieldQuery {
    return new FieldQuery([{ field, operator: '!=', value }], false);
  }

  get requirements(): readonly FieldRequirement[] {
    return this.terms;
  }

  isEmpty(): boolean {
    return !this.none && this.terms.length === 0;
  }

  matchesNothing(): boolean {
    return this.none;
  }

  /** Matches against a getter or a flat map of field values; a missing field reads as `''`. */
  matches(fields: FieldValueLookup | Readonly<Record<string, string>>): boolean {
    if (this.none) return false;
    const get: FieldValueLookup = typeof fields === 'function' ? fields : (f) => (Object.hasOwn(fields, f) ? fields[f] : undefined);
    return this.terms.every((t) => {
      const actual = get(t.field) ?? '';
      return t.operator === '=' ? actual === t.value : actual !== t.value;
    });
  }

  /** The distinct fields the query uses, in order of appearance. */
  fields(): string[] {
    return [...new Set(this.terms.map((t) => t.field))];
  }

  /** The fields used that are neither in `supported` nor universal. */
  unsupportedFields(supported: readonly string[]): string[] {
    return this.fields().filter((f) => !supported.includes(f) && !UNIVERSAL_SELECTABLE_FIELDS.includes(f));
  }

  /** The value a `field=value` term pins, if any. */
  requiresExactMatch(field: string): string | undefined {
    return this.terms.find((t) => t.field === field && t.operator === '=')?.value;
  }

  /** A new query with every term rewritten by `fn`. */
  transform(fn: FieldTransform): FieldQuery {
    if (this.none || this.terms.length === 0) return this;
    return new FieldQuery(
      this.terms.map((t) => {
        const [field, value] = fn(t.field, t.value);
        return { field, operator: t.operator, value };
      }),
      false,
    );
  }

  /** `a=b,c!=d` with values escaped; `==` prints as `=`. */
  toString(): string {
    return this.terms.map((t) => `${t.field}${t.operator}${escapeFieldValue(t.value)}`).join(',');
  }
}

/**
 * Rejects a field selector that uses a field the kind does not index, with Kubernetes' message
 * (`field label not supported: spec.foo`) as a 400 BadRequest.
 */
export function assertFieldsSupported(query: FieldQuery, supported: readonly string[]): void {
  const [first] = query.unsupportedFields(supported);
  if (first !== undefined) throw newBadRequest(`field label not supported: ${first}`);
}
