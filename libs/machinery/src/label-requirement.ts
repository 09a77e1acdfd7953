import { FieldError, fieldErrorsMessage, fieldInvalid, fieldNotSupported } from './field-errors';
import { FieldPath } from './field-path';
import { isQualifiedName, isValidLabelValue } from './name-validation';
import { newBadRequest } from './status-errors';

/** Operators of label (and field) requirements, spelled as Kubernetes' `selection` package spells them. */
export type SelectionOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'gt' | 'lt' | 'exists' | '!';

const BINARY_OPERATORS: readonly SelectionOperator[] = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];
const UNARY_OPERATORS: readonly SelectionOperator[] = ['exists', '!'];
const ALL_OPERATORS: readonly SelectionOperator[] = [...BINARY_OPERATORS, ...UNARY_OPERATORS];

/** The binary operators as the parser lists them in its "expected" message. */
export const LABEL_BINARY_OPERATORS = BINARY_OPERATORS;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go's strconv.ParseInt(s, 10, 64), or undefined when it would fail. */
export function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/** A key's problems as one field error, its messages joined by `; `. */
export function labelKeyError(key: string, field: string): FieldError | undefined {
  const errs = isQualifiedName(key);
  return errs.length > 0 ? fieldInvalid(field, key, errs.join('; ')) : undefined;
}

function labelValueError(key: string, value: string, field: string): FieldError | undefined {
  const errs = isValidLabelValue(value);
  return errs.length > 0 ? fieldInvalid(field, value, errs.join('; ')) : undefined;
}

/** Field errors of a requirement, with paths as NewRequirement prints them. */
export function validateLabelRequirement(key: string, operator: string, values: readonly string[], path?: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const at = (name: string): FieldPath => (path ? path.child(name) : FieldPath.root(name));
  const keyErr = labelKeyError(key, at('key').toString());
  if (keyErr) errs.push(keyErr);
  const valuePath = at('values');
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) errs.push(fieldInvalid(valuePath, values, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) errs.push(fieldInvalid(valuePath, values, 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) errs.push(fieldInvalid(valuePath, values, 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) errs.push(fieldInvalid(valuePath, values, "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (parseInt64(v) === undefined) {
          errs.push(fieldInvalid(valuePath.index(i), v, "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      });
      break;
    default:
      errs.push(fieldNotSupported(at('operator'), operator, ALL_OPERATORS));
  }
  values.forEach((v, i) => {
    const err = labelValueError(key, v, valuePath.index(i).key(key).toString());
    if (err) errs.push(err);
  });
  return errs;
}

/** One condition of a label selector: a key, an operator and its values. Immutable. */
export class LabelRequirement {
  private constructor(
    readonly key: string,
    readonly operator: SelectionOperator,
    readonly values: readonly string[],
  ) {}

  /** A validated requirement; throws a 400 BadRequest naming every problem. */
  static create(key: string, operator: SelectionOperator, values: readonly string[] = [], path?: FieldPath): LabelRequirement {
    const errs = validateLabelRequirement(key, operator, values, path);
    if (errs.length > 0) throw newBadRequest(fieldErrorsMessage(errs));
    return new LabelRequirement(key, operator, [...values]);
  }

  /** For values already validated (by the parser, or by schema validation of stored objects). */
  static unchecked(key: string, operator: SelectionOperator, values: readonly string[] = []): LabelRequirement {
    return new LabelRequirement(key, operator, [...values]);
  }

  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    const has = labels !== undefined && Object.hasOwn(labels, this.key);
    const value = has ? (labels as Record<string, string>)[this.key] : undefined;
    switch (this.operator) {
      case 'in':
      case '=':
      case '==':
        return has && this.values.includes(value as string);
      case 'notin':
      case '!=':
        return !has || !this.values.includes(value as string);
      case 'exists':
        return has;
      case '!':
        return !has;
      case 'gt':
      case 'lt': {
        if (!has || this.values.length !== 1) return false;
        const actual = parseInt64(value as string);
        const bound = parseInt64(this.values[0]);
        if (actual === undefined || bound === undefined) return false;
        return this.operator === 'gt' ? actual > bound : actual < bound;
      }
    }
  }

  /** `key=v`, `key in (a,b)`, `!key`, ...; several values are printed sorted. */
  toString(): string {
    let out = this.operator === '!' ? `!${this.key}` : this.key;
    switch (this.operator) {
      case 'exists':
      case '!':
        return out;
      case '=':
        out += '=';
        break;
      case '==':
        out += '==';
        break;
      case '!=':
        out += '!=';
        break;
      case 'in':
        out += ' in ';
        break;
      case 'notin':
        out += ' notin ';
        break;
      case 'gt':
        out += '>';
        break;
      case 'lt':
        out += '<';
        break;
    }
    const values = this.values.length === 1 ? this.values[0] : [...this.values].sort().join(',');
    return this.operator === 'in' || this.operator === 'notin' ? `${out}(${values})` : out + values;
  }
}
