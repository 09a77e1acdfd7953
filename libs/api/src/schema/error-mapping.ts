import type { ErrorObject } from 'ajv';
import {
  fieldDuplicate,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  fieldTooMany,
  fieldTypeInvalid,
  CLIENT_IP_AFFINITY_TIMEOUT_ERROR_MSG,
  FILE_MODE_ERROR_MSG,
  MAX_CLIENT_IP_AFFINITY_SECONDS,
  TOKEN_EXPIRATION_TOO_SHORT_MSG,
  WEBHOOK_TIMEOUT_ERROR_MSG,
  goFormatFloat,
  goQuote,
  goSyntax,
  inclusiveRangeError,
  intOrStringValue,
  IS_NEGATIVE_ERROR_MSG,
  RenderedValue,
} from '@svc/machinery';
import { ANNOTATION_KEY_PATTERN, LABEL_VALUE_PATTERN, PATTERN_VALIDATORS, PERCENT_PATTERN, QUALIFIED_NAME_PATTERN } from '../meta/names';
import { QUANTITY_FORMAT_ERROR } from '../meta/quantity';
import { QUANTITY_PATTERN } from './builders';
import type { FieldError } from './field-error';
import { joinField, joinIndex, joinKey, parseJsonPointer } from './field-path';
import type { JsonSchema } from './json-schema';
import { arrayItems, objectChild } from './schema-walk';

/**
 * Whose words a schema failure is reported in. Kubernetes checks its built-in kinds with hand-written
 * Go (`pkg/apis/<group>/validation`, apimachinery's name and number validators), and custom resources
 * with the OpenAPI validator of kube-openapi, whose messages name the field again (`spec.x in body
 * should be ...`). Clients match both, so each kind's errors are worded by the path Kubernetes takes.
 */
export type ErrorDialect = 'builtin' | 'custom-resource';

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
  /** The path of the map holding the value, when the last step was a map key. */
  mapField?: string;
}

/**
 * Resolves an ajv instancePath to a field path, using the data for indexes and the schema for map keys.
 * Built-in kinds print a map key in brackets (`data[key]`); kube-openapi joins it with a dot.
 */
function locate(root: unknown, schema: JsonSchema, pointer: string, dialect: ErrorDialect): Located {
  let field = '';
  let mapField: string | undefined;
  let value: unknown = root;
  let node: JsonSchema | undefined = schema;
  for (const token of parseJsonPointer(pointer)) {
    mapField = undefined;
    if (Array.isArray(value)) {
      const index = Number(token);
      field = joinIndex(field, index);
      value = value[index];
      node = node && arrayItems(node);
      continue;
    }
    const child = node ? objectChild(node, token) : { kind: 'unknown' as const };
    if (child.kind === 'map') {
      mapField = field;
      field = dialect === 'builtin' ? joinKey(field, token) : joinField(field, token);
    } else {
      field = joinField(field, token);
    }
    value = value && typeof value === 'object' ? (value as Record<string, unknown>)[token] : undefined;
    node = child.schema;
  }
  return { field, value, ...(mapField !== undefined && { mapField }) };
}

/**
 * Errors of anyOf/oneOf branches are replaced by one error for the whole value. kube-openapi also
 * reports the failures of its best branch; with branches that fail alike that is the first, whose errors
 * are kept for custom resources.
 */
function collapseBranches(errors: ErrorObject[], dialect: ErrorDialect): { kept: ErrorObject[]; branchTypes: Map<ErrorObject, string[] | undefined> } {
  const branchErrors = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const branchTypes = new Map<ErrorObject, string[] | undefined>();
  const dropped = new Set<ErrorObject>();
  for (const b of branchErrors) {
    const inner = errors.filter((e) => e !== b && e.schemaPath.startsWith(`${b.schemaPath}/`) && e.instancePath.startsWith(b.instancePath));
    const firstBranch = `${b.schemaPath}/0/`;
    inner.filter((e) => dialect === 'builtin' || !e.schemaPath.startsWith(firstBranch)).forEach((e) => dropped.add(e));
    const allTypes = inner.length > 0 && inner.every((e) => e.keyword === 'type' && e.instancePath === b.instancePath);
    branchTypes.set(b, allTypes ? [...new Set(inner.map((e) => String(e.params.type)))] : undefined);
  }
  const kept = errors.filter((e) => !dropped.has(e));
  return { kept: dialect === 'builtin' ? kept : inKubeOpenApiOrder(kept, branchErrors), branchTypes };
}

const LIST_SIZE_KEYWORDS = new Set(['minItems', 'maxItems']);

/**
 * kube-openapi checks a value's type, then its anyOf/oneOf (the composite failure, then the failures of
 * the best branch), then the rest, and a list's items before its length; ajv reports the branches and
 * the length first.
 */
function inKubeOpenApiOrder(errors: ErrorObject[], branchErrors: ErrorObject[]): ErrorObject[] {
  let out = errors;
  for (const size of errors.filter((e) => LIST_SIZE_KEYWORDS.has(e.keyword))) {
    const items = out.filter((e) => e.instancePath.startsWith(`${size.instancePath}/`));
    if (items.length === 0) continue;
    const rest = out.filter((e) => e !== size);
    const after = rest.indexOf(items[items.length - 1]) + 1;
    out = [...rest.slice(0, after), size, ...rest.slice(after)];
  }
  for (const b of branchErrors) {
    const start = out.findIndex((e) => e === b || (e.schemaPath.startsWith(`${b.schemaPath}/`) && e.instancePath.startsWith(b.instancePath)));
    if (start < 0) continue;
    const typeErrors = out.filter(
      (e) => e.keyword === 'type' && e.instancePath === b.instancePath && !e.schemaPath.startsWith(`${b.schemaPath}/`) && out.indexOf(e) > start,
    );
    // Nothing before `start` moves, so it is also where the moved errors go in what remains.
    const rest = out.filter((e) => !typeErrors.includes(e) && e !== b);
    out = [...rest.slice(0, start), ...typeErrors, b, ...rest.slice(start)];
  }
  return out;
}

function describeTypes(types: string[]): string {
  return `must be of type ${types.join(' or ')}`;
}

function parentOf(e: ErrorObject): JsonSchema {
  return e.parentSchema ?? {};
}

/**
 * A custom resource's metadata is checked by Kubernetes' ObjectMeta rules (hand-written, as for
 * built-in kinds); only the constraints the CRD itself puts on `metadata.name` and `metadata.generateName`
 * (the second branch of the allOf the custom resource schema builds) go through the OpenAPI validator.
 */
function dialectOf(e: ErrorObject, dialect: ErrorDialect): ErrorDialect {
  if (dialect === 'builtin') return 'builtin';
  if (e.instancePath === '/metadata' || e.instancePath.startsWith('/metadata/')) {
    return e.schemaPath.includes('/allOf/1/') ? 'custom-resource' : 'builtin';
  }
  return 'custom-resource';
}

/** Maps ajv's errors (collected with `verbose`) for `data` validated against `schema` to Kubernetes field errors. */
export function mapAjvErrors(errors: readonly ErrorObject[], data: unknown, schema: JsonSchema, dialect: ErrorDialect = 'builtin'): FieldError[] {
  const { kept, branchTypes } = collapseBranches([...errors], dialect);
  const out: FieldError[] = [];
  const seen = new Set<string>();
  const push = (e: FieldError) => {
    const key = `${e.type}\u0000${e.field}\u0000${e.detail}\u0000${JSON.stringify(e.badValue) ?? ''}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(e);
  };
  // kube-openapi stops at the first of maxLength, minLength and pattern that a string fails.
  const stringChecked = new Set<string>();

  for (const e of kept) {
    if (e.keyword === 'propertyNames' || e.keyword === 'if') continue;
    const d = dialectOf(e, dialect);
    const at = locate(data, schema, e.instancePath, d);
    if (d === 'builtin') {
      for (const error of builtinErrors(e, at, branchTypes)) push(error);
    } else {
      if (e.keyword === 'maxLength' || e.keyword === 'minLength' || e.keyword === 'pattern') {
        if (stringChecked.has(e.instancePath)) continue;
        stringChecked.add(e.instancePath);
      }
      for (const error of customResourceErrors(e, at, data, schema)) push(error);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Built-in kinds: the words of Kubernetes' hand-written validation.

/** Built-in map keys whose errors Kubernetes reports on the map itself (labels, annotations, selectors). */
const KEYS_REPORTED_ON_MAP = new Set([QUALIFIED_NAME_PATTERN, ANNOTATION_KEY_PATTERN]);

function patternMessages(pattern: unknown, value: string): string[] | undefined {
  const validator = typeof pattern === 'string' ? PATTERN_VALIDATORS.get(pattern) : undefined;
  if (!validator) return undefined;
  const messages = validator(value);
  return messages.length > 0 ? messages : undefined;
}

/**
 * The value as Kubernetes prints it: an int-or-percent (maxSurge, minAvailable) is passed whole, so its
 * Go struct is printed; a port number or name (targetPort, a probe's port) is passed as its int or string.
 */
function shownValue(node: JsonSchema, value: unknown): unknown {
  if (node['x-svc-int-or-string'] === true && node.pattern === PERCENT_PATTERN && (typeof value === 'string' || typeof value === 'number')) {
    return intOrStringValue(value);
  }
  return value;
}

/**
 * Ranges whose check Kubernetes words in a way of its own: the bounds name the field's validator, as a
 * pattern does for names (only file modes are 0 to 0777, only webhook timeouts 1 to 30 seconds, ...).
 */
const RANGE_DETAILS: ReadonlyMap<string, string> = new Map([
  [`0:${0o777}`, FILE_MODE_ERROR_MSG],
  [`1:${MAX_CLIENT_IP_AFFINITY_SECONDS}`, CLIENT_IP_AFFINITY_TIMEOUT_ERROR_MSG],
  ['1:30', WEBHOOK_TIMEOUT_ERROR_MSG],
  ['600:', TOKEN_EXPIRATION_TOO_SHORT_MSG],
]);

function rangeDetail(node: JsonSchema, keyword: string, limit: number): string {
  const min = typeof node.minimum === 'number' ? node.minimum : undefined;
  const max = typeof node.maximum === 'number' ? node.maximum : undefined;
  const special = RANGE_DETAILS.get(`${min ?? ''}:${max ?? ''}`);
  if (special !== undefined) return special;
  if (keyword === 'exclusiveMinimum') return `must be greater than ${limit}`;
  if (keyword === 'exclusiveMaximum') return `must be less than ${limit}`;
  // validation.IsInRange and IsValidPortNum.
  if (min !== undefined && max !== undefined) return inclusiveRangeError(min, max);
  if (keyword === 'minimum' && limit === 0) return IS_NEGATIVE_ERROR_MSG;
  if (keyword === 'minimum' && limit === 1) return 'must be greater than 0';
  return keyword === 'minimum' ? `must be greater than or equal to ${limit}` : `must be less than or equal to ${limit}`;
}

function builtinErrors(e: ErrorObject, at: Located, branchTypes: Map<ErrorObject, string[] | undefined>): FieldError[] {
  const params = e.params as Record<string, unknown>;
  const node = parentOf(e);
  const propertyName = (e as ErrorObject & { propertyName?: string }).propertyName;
  if (propertyName !== undefined) {
    // A map key failed: label and annotation keys are reported on the map, other keys (ConfigMap and
    // Secret data) at the key's own path.
    const field = KEYS_REPORTED_ON_MAP.has(String(node.pattern)) ? at.field : joinKey(at.field, propertyName);
    const messages = e.keyword === 'pattern' || e.keyword === 'maxLength' ? patternMessages(node.pattern, propertyName) : undefined;
    if (messages) return messages.map((m) => fieldInvalid(field, propertyName, m));
    const detail = e.keyword === 'maxLength' ? `must be no more than ${String(params.limit)} characters` : (e.message ?? 'invalid key');
    return [fieldInvalid(field, propertyName, detail)];
  }
  switch (e.keyword) {
    case 'required':
      return [fieldRequired(joinField(at.field, String(params.missingProperty)))];
    case 'dependencies':
    case 'dependentRequired':
      return [fieldRequired(joinField(at.field, String(params.missingProperty)), `required when ${String(params.property)} is set`)];
    case 'enum':
      return [
        fieldNotSupported(
          at.field,
          at.value,
          (params.allowedValues as unknown[]).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))),
        ),
      ];
    case 'const':
      return [fieldNotSupported(at.field, at.value, [typeof params.allowedValue === 'string' ? params.allowedValue : JSON.stringify(params.allowedValue)])];
    case 'type': {
      const t = params.type;
      return [fieldTypeInvalid(at.field, at.value, describeTypes(Array.isArray(t) ? t.map(String) : String(t).split(',')))];
    }
    case 'x-svc-int-or-string':
      return [fieldTypeInvalid(at.field, at.value, describeTypes(['integer', 'string']))];
    case 'pattern':
    case 'maxLength': {
      if (typeof at.value !== 'string') return [];
      if (node.pattern === QUANTITY_PATTERN) return [fieldTypeInvalid(at.field, at.value, QUANTITY_FORMAT_ERROR)];
      const messages = patternMessages(node.pattern, at.value);
      if (messages) {
        // Label values in a map (labels, selectors) are reported on the map, as ValidateLabels does.
        const field = node.pattern === LABEL_VALUE_PATTERN && at.mapField !== undefined ? at.mapField : at.field;
        return messages.map((m) => fieldInvalid(field, shownValue(node, at.value), m));
      }
      if (e.keyword === 'maxLength') return [fieldTooLong(at.field, Number(params.limit))];
      return [fieldInvalid(at.field, shownValue(node, at.value), `must match the regular expression '${String(params.pattern)}'`)];
    }
    case 'format':
      return [fieldInvalid(at.field, at.value, FORMAT_DETAILS[String(params.format)] ?? `must be a valid ${String(params.format)}`)];
    case 'minLength':
      if (at.value === '') return [fieldRequired(at.field)];
      return [fieldInvalid(at.field, at.value, `must be at least ${String(params.limit)} characters`)];
    case 'maxItems':
      return [fieldTooMany(at.field, Array.isArray(at.value) ? at.value.length : -1, Number(params.limit))];
    case 'minItems':
      if (Array.isArray(at.value) && at.value.length === 0) return [fieldRequired(at.field)];
      return [fieldInvalid(at.field, at.value, `must have at least ${String(params.limit)} items`)];
    case 'maxProperties':
      return [fieldTooMany(at.field, at.value && typeof at.value === 'object' ? Object.keys(at.value).length : -1, Number(params.limit))];
    case 'minProperties':
      return [fieldInvalid(at.field, at.value, `must have at least ${String(params.limit)} properties`)];
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return [fieldInvalid(at.field, at.value, rangeDetail(node, e.keyword, Number(params.limit)))];
    case 'multipleOf':
      return [fieldInvalid(at.field, at.value, `must be a multiple of ${String(params.multipleOf)}`)];
    case 'x-svc-unique-map-keys':
      return [duplicateMapKeys(e, at)];
    case 'uniqueItems':
      return [duplicateItem(e, at)];
    case 'additionalProperties':
      return [{ type: 'FieldValueForbidden', field: joinField(at.field, String(params.additionalProperty)), detail: 'field not declared in schema' }];
    case 'anyOf':
    case 'oneOf': {
      const types = branchTypes.get(e);
      if (types) return [fieldTypeInvalid(at.field, at.value, describeTypes(types))];
      const detail = e.keyword === 'oneOf' ? 'must validate one and only one schema (oneOf)' : 'must validate at least one schema (anyOf)';
      return [fieldInvalid(at.field, at.value, detail)];
    }
    case 'not':
      return [fieldInvalid(at.field, at.value, 'must not validate the schema (not)')];
    default:
      return [fieldInvalid(at.field, at.value, e.message ?? `failed ${e.keyword}`)];
  }
}

function duplicateMapKeys(e: ErrorObject, at: Located): FieldError {
  const params = e.params as Record<string, unknown>;
  const j = Number(params.j);
  const items = Array.isArray(at.value) ? at.value : [];
  const item = items[j] && typeof items[j] === 'object' ? (items[j] as Record<string, unknown>) : {};
  const keys = Array.isArray(params.keys) ? (params.keys as string[]) : [];
  // structurallisttype: one key field gives a map of that key, several the map of those present.
  const key: Record<string, unknown> = {};
  for (const k of keys) if (item[k] !== undefined) key[k] = item[k];
  return fieldDuplicate(joinIndex(at.field, j), new RenderedValue(goSyntax(key)));
}

function duplicateItem(e: ErrorObject, at: Located): FieldError {
  const j = Number((e.params as Record<string, unknown>).j);
  const items: unknown[] = Array.isArray(at.value) ? at.value : [];
  const item = items[j];
  return fieldDuplicate(joinIndex(at.field, j), item !== null && typeof item === 'object' ? new RenderedValue(goSyntax(item)) : item);
}

// ---------------------------------------------------------------------------------------------------
// Custom resources: kube-openapi's words, as apiextensions-apiserver turns them into field errors.

/** `%v` of a number kube-openapi decoded: an integer is an int64, anything else a float64. */
function goNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : goFormatFloat(value);
}

/** The JSON type kube-openapi names for a decoded value (its `schemaInfoForType`). */
function jsonTypeOf(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function customResourceErrors(e: ErrorObject, at: Located, data: unknown, schema: JsonSchema): FieldError[] {
  const params = e.params as Record<string, unknown>;
  const name = at.field;
  const value = at.value;
  const invalid = (detail: string, shown: unknown = value) =>
    fieldInvalid(name, shown === undefined || shown === null ? '' : shown, `${name} in body ${detail}`);
  const propertyName = (e as ErrorObject & { propertyName?: string }).propertyName;
  if (propertyName !== undefined) {
    // A CRD schema has no propertyNames; only the embedded metadata's maps do, checked as built-ins.
    return [fieldInvalid(joinField(name, propertyName), propertyName, e.message ?? 'invalid key')];
  }
  switch (e.keyword) {
    case 'required':
      return [fieldRequired(joinField(name, String(params.missingProperty)))];
    case 'enum':
      return [
        fieldNotSupported(
          name,
          value,
          (params.allowedValues as unknown[]).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))),
        ),
      ];
    case 'const':
      return [fieldNotSupported(name, value, [typeof params.allowedValue === 'string' ? params.allowedValue : JSON.stringify(params.allowedValue)])];
    case 'type':
    case 'x-svc-int-or-string': {
      const types = e.keyword === 'type' ? (Array.isArray(params.type) ? params.type.map(String) : String(params.type).split(',')) : ['integer', 'string'];
      const actual = jsonTypeOf(value);
      return [fieldTypeInvalid(name, actual, `${name} in body must be of type ${types.join(',')}: ${goQuote(actual)}`)];
    }
    case 'format':
      return [fieldTypeInvalid(name, value, `${name} in body must be of type ${String(params.format)}: ${goQuote(String(value))}`)];
    case 'maxLength':
      return [fieldTooLong(name, Number(params.limit))];
    case 'minLength':
      return [invalid(`should be at least ${String(params.limit)} chars long`)];
    case 'pattern':
      return [invalid(`should match '${String(params.pattern)}'`)];
    case 'maxItems':
      return [fieldTooMany(name, Array.isArray(value) ? value.length : -1, Number(params.limit))];
    case 'minItems':
      return [invalid(`should have at least ${String(params.limit)} items`, Array.isArray(value) ? value.length : value)];
    case 'maxProperties':
      return [fieldTooMany(name, value && typeof value === 'object' ? Object.keys(value).length : -1, Number(params.limit))];
    case 'minProperties':
      return [invalid(`should have at least ${String(params.limit)} properties`, value && typeof value === 'object' ? Object.keys(value).length : value)];
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      const limit = Number(params.limit);
      // An integer value is compared as an int64 (the bound truncated), anything else as a float64.
      const bound = typeof value === 'number' && Number.isInteger(value) ? String(Math.trunc(limit)) : goFormatFloat(limit);
      const words: Record<string, string> = {
        minimum: 'should be greater than or equal to',
        maximum: 'should be less than or equal to',
        exclusiveMinimum: 'should be greater than',
        exclusiveMaximum: 'should be less than',
      };
      return [invalid(`${words[e.keyword]} ${bound}`, typeof value === 'number' ? new RenderedValue(goNumber(value)) : value)];
    }
    case 'multipleOf': {
      const factor = Number(params.multipleOf);
      return [invalid(`should be a multiple of ${goNumber(factor)}`, typeof value === 'number' ? new RenderedValue(goNumber(value)) : value)];
    }
    case 'x-svc-unique-map-keys':
      return [duplicateMapKeys(e, { ...at, field: structuralPath(data, schema, e.instancePath) })];
    case 'uniqueItems':
      return [duplicateItem(e, { ...at, field: structuralPath(data, schema, e.instancePath) })];
    case 'additionalProperties':
      return [{ type: 'FieldValueForbidden', field: joinField(name, String(params.additionalProperty)), detail: 'field not declared in schema' }];
    // Composite failures are not field errors in kube-openapi; apiextensions reports them without a path.
    case 'anyOf':
      return [fieldInvalid('', '', `${goQuote(name)} must validate at least one schema (anyOf)`)];
    case 'oneOf': {
      const passing = Array.isArray(params.passingSchemas) ? params.passingSchemas.length : 0;
      const found = passing === 0 ? 'Found none valid' : `Found ${passing} valid alternatives`;
      return [fieldInvalid('', '', `${goQuote(name)} must validate one and only one schema (oneOf). ${found}`)];
    }
    case 'not':
      return [fieldInvalid('', '', `${goQuote(name)} must not validate the schema (not)`)];
    default:
      return [invalid(e.message ?? `failed ${e.keyword}`)];
  }
}

/** Duplicates in list-type sets and maps are found by apiextensions' own walk, which prints paths as built-ins do. */
function structuralPath(data: unknown, schema: JsonSchema, pointer: string): string {
  return locate(data, schema, pointer, 'builtin').field;
}
