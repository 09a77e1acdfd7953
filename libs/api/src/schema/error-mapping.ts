import type { ErrorObject } from 'ajv';
import { PATTERN_MESSAGES } from '../meta/names';
import type { FieldError } from './field-error';
import { joinField, joinIndex, joinKey, parseJsonPointer } from './field-path';
import type { JsonSchema } from './json-schema';
import { arrayItems, objectChild } from './schema-walk';

const FORMAT_DETAILS: Record<string, string> = {
  'date-time': 'must be an RFC 3339 date-time (e.g. "2006-01-02T15:04:05Z")',
  date: 'must be a date (e.g. "2006-01-02")',
  byte: 'must be a base64 encoded string',
  int32: 'must fit in a 32-bit signed integer',
  int64: 'must fit in a 64-bit signed integer',
  ipv4: 'must be a valid IPv4 address',
  ipv6: 'must be a valid IPv6 address',
  uri: 'must be a valid URI',
  hostname: 'must be a valid hostname',
  email: 'must be a valid email address',
  uuid: 'must be a valid UUID',
};

interface Located {
  field: string;
  value: unknown;
}

/** Resolves an ajv instancePath to a Kubernetes field path, using the data for indexes and the schema for map keys. */
function locate(root: unknown, schema: JsonSchema, pointer: string): Located {
  let field = '';
  let value: unknown = root;
  let node: JsonSchema | undefined = schema;
  for (const token of parseJsonPointer(pointer)) {
    if (Array.isArray(value)) {
      const index = Number(token);
      field = joinIndex(field, index);
      value = value[index];
      node = node && arrayItems(node);
      continue;
    }
    const child = node ? objectChild(node, token) : { kind: 'unknown' as const };
    field = child.kind === 'map' ? joinKey(field, token) : joinField(field, token);
    value = value && typeof value === 'object' ? (value as Record<string, unknown>)[token] : undefined;
    node = child.schema;
  }
  return { field, value };
}

function childField(root: unknown, schema: JsonSchema, pointer: string, name: string): string {
  const parent = locate(root, schema, pointer);
  return joinField(parent.field, name);
}

function patternDetail(pattern: string): string {
  return PATTERN_MESSAGES.get(pattern) ?? `must match the regular expression '${pattern}'`;
}

function describeTypes(types: string[]): string {
  return `must be of type ${types.join(' or ')}`;
}

/** Errors of anyOf/oneOf branches are replaced by one error for the whole value. */
function collapseBranches(errors: ErrorObject[]): { kept: ErrorObject[]; branchTypes: Map<ErrorObject, string[] | undefined> } {
  const branchErrors = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const branchTypes = new Map<ErrorObject, string[] | undefined>();
  const dropped = new Set<ErrorObject>();
  for (const b of branchErrors) {
    const inner = errors.filter((e) => e !== b && e.schemaPath.startsWith(`${b.schemaPath}/`) && e.instancePath.startsWith(b.instancePath));
    inner.forEach((e) => dropped.add(e));
    const allTypes = inner.length > 0 && inner.every((e) => e.keyword === 'type' && e.instancePath === b.instancePath);
    branchTypes.set(b, allTypes ? [...new Set(inner.map((e) => String(e.params.type)))] : undefined);
  }
  return { kept: errors.filter((e) => !dropped.has(e)), branchTypes };
}

/** Maps ajv's errors for `data` validated against `schema` to Kubernetes field errors. */
export function mapAjvErrors(errors: readonly ErrorObject[], data: unknown, schema: JsonSchema): FieldError[] {
  const { kept, branchTypes } = collapseBranches([...errors]);
  const out: FieldError[] = [];
  const seen = new Set<string>();
  const push = (e: FieldError) => {
    const key = `${e.type}\u0000${e.field}\u0000${e.detail}\u0000${JSON.stringify(e.badValue) ?? ''}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(e);
  };

  for (const e of kept) {
    if (e.keyword === 'propertyNames' || e.keyword === 'if') continue;
    const at = locate(data, schema, e.instancePath);
    const params = e.params as Record<string, unknown>;
    const propertyName = (e as ErrorObject & { propertyName?: string }).propertyName;
    if (propertyName !== undefined) {
      // A map key failed. Kubernetes reports label and annotation keys on the map itself, and every
      // other map's key (ConfigMap and Secret data) at the key's own path.
      const field = /(^|\.)metadata\.(labels|annotations)$/.test(at.field) ? at.field : joinKey(at.field, propertyName);
      const detail =
        e.keyword === 'pattern'
          ? patternDetail(String(params.pattern))
          : e.keyword === 'maxLength'
            ? `must be no more than ${String(params.limit)} characters`
            : (e.message ?? 'invalid key');
      push({ type: 'FieldValueInvalid', field, badValue: propertyName, detail });
      continue;
    }
    switch (e.keyword) {
      case 'required':
        push({ type: 'FieldValueRequired', field: childField(data, schema, e.instancePath, String(params.missingProperty)), detail: '' });
        break;
      case 'dependencies':
      case 'dependentRequired':
        push({
          type: 'FieldValueRequired',
          field: childField(data, schema, e.instancePath, String(params.missingProperty)),
          detail: `required when ${String(params.property)} is set`,
        });
        break;
      case 'enum':
        push({
          type: 'FieldValueNotSupported',
          field: at.field,
          badValue: at.value,
          detail: `supported values: ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
        });
        break;
      case 'const':
        push({ type: 'FieldValueNotSupported', field: at.field, badValue: at.value, detail: `supported values: ${JSON.stringify(params.allowedValue)}` });
        break;
      case 'type': {
        const t = params.type;
        push({
          type: 'FieldValueTypeInvalid',
          field: at.field,
          badValue: at.value,
          detail: describeTypes(Array.isArray(t) ? t.map(String) : String(t).split(',')),
        });
        break;
      }
      case 'x-svc-int-or-string':
        push({ type: 'FieldValueTypeInvalid', field: at.field, badValue: at.value, detail: describeTypes(['integer', 'string']) });
        break;
      case 'pattern':
        push({ type: 'FieldValueInvalid', field: at.field, badValue: at.value, detail: patternDetail(String(params.pattern)) });
        break;
      case 'format':
        push({
          type: 'FieldValueInvalid',
          field: at.field,
          badValue: at.value,
          detail: FORMAT_DETAILS[String(params.format)] ?? `must be a valid ${String(params.format)}`,
        });
        break;
      case 'maxLength':
        push({ type: 'FieldValueTooLong', field: at.field, badValue: at.value, detail: `must have at most ${String(params.limit)} bytes` });
        break;
      case 'minLength':
        if (at.value === '') push({ type: 'FieldValueRequired', field: at.field, detail: '' });
        else push({ type: 'FieldValueInvalid', field: at.field, badValue: at.value, detail: `must be at least ${String(params.limit)} characters` });
        break;
      case 'maxItems':
        push({
          type: 'FieldValueTooMany',
          field: at.field,
          badValue: Array.isArray(at.value) ? at.value.length : at.value,
          detail: `must have at most ${String(params.limit)} items`,
        });
        break;
      case 'minItems':
        if (Array.isArray(at.value) && at.value.length === 0) push({ type: 'FieldValueRequired', field: at.field, detail: '' });
        else push({ type: 'FieldValueInvalid', field: at.field, badValue: at.value, detail: `must have at least ${String(params.limit)} items` });
        break;
      case 'maxProperties':
        push({
          type: 'FieldValueTooMany',
          field: at.field,
          badValue: at.value && typeof at.value === 'object' ? Object.keys(at.value).length : at.value,
          detail: `must have at most ${String(params.limit)} properties`,
        });
        break;
      case 'minProperties':
        push({ type: 'FieldValueInvalid', field: at.field, badValue: at.value, detail: `must have at least ${String(params.limit)} properties` });
        break;
      case 'minimum':
      case 'maximum':
      case 'exclusiveMinimum':
      case 'exclusiveMaximum': {
        const words: Record<string, string> = {
          '>=': 'greater than or equal to',
          '<=': 'less than or equal to',
          '>': 'greater than',
          '<': 'less than',
        };
        push({
          type: 'FieldValueInvalid',
          field: at.field,
          badValue: at.value,
          detail: `must be ${words[String(params.comparison)] ?? String(params.comparison)} ${String(params.limit)}`,
        });
        break;
      }
      case 'multipleOf':
        push({ type: 'FieldValueInvalid', field: at.field, badValue: at.value, detail: `must be a multiple of ${String(params.multipleOf)}` });
        break;
      case 'x-svc-unique-map-keys': {
        const j = Number(params.j);
        const items = Array.isArray(at.value) ? at.value : [];
        const item = items[j] && typeof items[j] === 'object' ? (items[j] as Record<string, unknown>) : {};
        const keys = Array.isArray(params.keys) ? (params.keys as string[]) : [];
        push({ type: 'FieldValueDuplicate', field: joinIndex(at.field, j), badValue: Object.fromEntries(keys.map((k) => [k, item[k]])), detail: '' });
        break;
      }
      case 'uniqueItems': {
        const j = Number(params.j);
        const items = Array.isArray(at.value) ? at.value : [];
        push({ type: 'FieldValueDuplicate', field: joinIndex(at.field, j), badValue: items[j], detail: '' });
        break;
      }
      case 'additionalProperties':
        push({
          type: 'FieldValueForbidden',
          field: childField(data, schema, e.instancePath, String(params.additionalProperty)),
          detail: 'field not declared in schema',
        });
        break;
      case 'anyOf':
      case 'oneOf': {
        const types = branchTypes.get(e);
        if (types) push({ type: 'FieldValueTypeInvalid', field: at.field, badValue: at.value, detail: describeTypes(types) });
        else {
          const detail = e.keyword === 'oneOf' ? 'must validate one and only one schema (oneOf)' : 'must validate at least one schema (anyOf)';
          push({ type: 'FieldValueInvalid', field: at.field, badValue: at.value, detail });
        }
        break;
      }
      case 'not':
        push({ type: 'FieldValueInvalid', field: at.field, badValue: at.value, detail: 'must not validate the schema (not)' });
        break;
      default:
        push({ type: 'FieldValueInvalid', field: at.field, badValue: at.value, detail: e.message ?? `failed ${e.keyword}` });
    }
  }
  return out;
}
