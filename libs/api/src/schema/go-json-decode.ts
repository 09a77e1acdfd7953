import { isRecord } from '@svc/machinery';
import { ObjectMetaSchema } from '../meta/object-meta';
import { parseQuantity, QUANTITY_FORMAT_ERROR } from '../meta/quantity';
import { namedStructs } from '../openapi/named-structs';
import { QUANTITY_PATTERN } from './builders';
import { goBase64ErrorOffset } from './go-base64';
import type { KindDefinition } from '../scheme/kind-definition';
import type { JsonSchema } from './json-schema';
import { arrayItems, isEmbeddedResource, objectChild, preservesUnknownFields, structuralNodes } from './schema-walk';

/**
 * The error Kubernetes' JSON decoder gives for a body of a built-in kind with a value of the wrong
 * type: Go's encoding/json as sigs.k8s.io/json carries it (Go 1.23), decoding into the kind's Go
 * struct. Clients and people match its words, so they are Go's own:
 *
 *   json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32
 *
 * The struct is the innermost one holding the field, the path is every struct field's JSON name from
 * the root (list indexes and map keys are not part of it), and the type is the Go type's name, which
 * the schema gives: int32 and int64 from `format`, `[]v1.Container` for a list, `map[string]string`
 * for a map, `v1.PodSpec` for a named struct (its OpenAPI component, see named-structs), the version
 * as the package's name. Go keeps the first such error of the body, in document order, and goes on;
 * a type with a decoder of its own (Quantity, IntOrString, Time) stops the decoding at once with its
 * own error, which then wins over a type error found before it.
 *
 * Go's names that the schema does not carry differ: a struct declared inline in the schema (Go's
 * `EnvVarSource`) is named after its field (`ValueFrom`), a `spec` or `status` of the kind after the
 * kind (`NamespaceSpec`); a named string or map type (`v1.PullPolicy`, `v1.ResourceList`) is printed as
 * its underlying type (`string`, `map[string]resource.Quantity`).
 *
 * Undefined when Go would decode the body, whatever else is wrong with it.
 */
export function goJsonDecodeError(schema: JsonSchema, kind: string, version: string, body: unknown, isKind = true): string | undefined {
  if (!isRecord(body)) return undefined;
  const decoder = new GoJsonDecoder();
  try {
    decoder.struct(body, schema, { struct: kind, pkg: version, kind: isKind }, []);
  } catch (error) {
    if (error instanceof Fatal) return error.message;
    throw error;
  }
  return decoder.saved;
}

/**
 * What Kubernetes' decoder says of a body of the kind `definition`: a built-in kind is decoded into
 * its Go struct (see goJsonDecodeError); a custom resource is decoded as unstructured JSON, where no
 * value has a wrong type, and only its metadata is then read into ObjectMeta's Go struct (the CRD
 * handler's schema coercion), so only there Go's words answer.
 */
export function kindDecodeError(definition: KindDefinition, body: unknown): string | undefined {
  if (definition.source.type === 'builtin') return goJsonDecodeError(definition.schema, definition.kind, definition.version, body);
  if (!isRecord(body)) return undefined;
  const metadata = body.metadata;
  if (metadata === undefined || metadata === null) return undefined;
  // The metadata alone is decoded, so the path starts inside it (`ObjectMeta.labels`).
  if (!isRecord(metadata)) return unmarshalError(jsonKind(metadata), 'v1.ObjectMeta', { fields: [] });
  return goJsonDecodeError(ObjectMetaSchema, 'ObjectMeta', 'v1', metadata, false);
}

/** A decoder of its own failed: Go's Unmarshal returns its error as it is, with no field context. */
class Fatal extends Error {}

/** The Go struct being decoded: its name and its package's. */
interface StructName {
  struct: string;
  pkg: string;
  /** The kind's own struct, the body's root. */
  kind?: boolean;
}

/** Where a value sits for Go's error context: the innermost struct whose field holds it, and the path of field names. */
interface Context {
  struct?: string;
  fields: readonly string[];
}

type GoKind =
  | { kind: 'any' }
  | { kind: 'string' | 'bool' | 'float64' | 'bytes' }
  | { kind: 'int'; bits: 32 | 64 }
  | { kind: 'quantity' | 'intOrString' | 'time' }
  | { kind: 'slice'; items: JsonSchema | undefined }
  | { kind: 'map'; values: JsonSchema | undefined }
  | { kind: 'struct'; name: StructName };

const INT_RANGE = { 32: [-(2 ** 31), 2 ** 31 - 1], 64: [-(2 ** 63), 2 ** 63 - 1] } as const;

class GoJsonDecoder {
  saved?: string;

  private save(message: string): void {
    this.saved ??= message;
  }

  /** An object into a struct: each known field in document order; unknown fields are skipped (strict decoding reports them apart). */
  struct(body: Record<string, unknown>, node: JsonSchema, name: StructName, fields: readonly string[]): void {
    for (const [key, value] of Object.entries(body)) {
      const child = objectChild(node, key);
      if (child.kind !== 'property' || child.schema === undefined) continue;
      this.value(value, child.schema, { struct: name.struct, fields: [...fields, key] }, key, name);
    }
  }

  private value(value: unknown, node: JsonSchema, at: Context, field: string, parent: StructName): void {
    if (value === null || value === undefined) return;
    const go = goKind(node, field, parent);
    switch (go.kind) {
      case 'any':
        return;
      case 'quantity':
        return quantity(value);
      case 'intOrString':
        return intOrString(value);
      case 'time':
        if (typeof value !== 'string') throw new Fatal(unmarshalError(jsonKind(value), 'string', { fields: [] }));
        return;
    }
    const typeName = () => goTypeName(node, field, parent);
    if (typeof value === 'string') {
      if (go.kind === 'bytes') {
        // Go's base64 error, kept as the first error with no field context.
        const offset = goBase64ErrorOffset(value);
        if (offset !== undefined) this.save(`illegal base64 data at input byte ${offset}`);
      } else if (go.kind !== 'string') {
        this.save(unmarshalError('string', typeName(), at));
      }
    } else if (typeof value === 'boolean') {
      if (go.kind !== 'bool') this.save(unmarshalError('bool', typeName(), at));
    } else if (typeof value === 'number') {
      if (go.kind === 'int') {
        const [min, max] = INT_RANGE[go.bits];
        if (!Number.isInteger(value) || value < min || value > max) this.save(unmarshalError(`number ${goNumber(value)}`, typeName(), at));
      } else if (go.kind !== 'float64') {
        this.save(unmarshalError('number', typeName(), at));
      }
    } else if (Array.isArray(value)) {
      if (go.kind !== 'slice') return this.save(unmarshalError('array', typeName(), at));
      if (go.items === undefined) return;
      for (const item of value) this.value(item, go.items, at, singular(field), parent);
    } else if (isRecord(value)) {
      if (go.kind === 'struct') return this.struct(value, node, go.name, at.fields);
      if (go.kind !== 'map') return this.save(unmarshalError('object', typeName(), at));
      if (go.values === undefined) return;
      for (const item of Object.values(value)) this.value(item, go.values, at, field, parent);
    }
  }
}

/** resource.Quantity's decoder: the text (or the number) must parse, anything else is not a quantity. */
function quantity(value: unknown): void {
  if ((typeof value === 'string' || typeof value === 'number') && (value === '0' || parseQuantity(value) !== undefined)) return;
  const text = typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
  // Text of the loose shape Go splits first, whose suffix it then cannot read.
  if (/^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/.test(text)) throw new Fatal("unable to parse quantity's suffix");
  throw new Fatal(QUANTITY_FORMAT_ERROR);
}

/** intstr.IntOrString's decoder: a string, or else whatever encoding/json makes of the value as an int32. */
function intOrString(value: unknown): void {
  if (typeof value === 'string') return;
  if (typeof value === 'number') {
    const [min, max] = INT_RANGE[32];
    if (Number.isInteger(value) && value >= min && value <= max) return;
    throw new Fatal(unmarshalError(`number ${goNumber(value)}`, 'int32', { fields: [] }));
  }
  throw new Fatal(unmarshalError(jsonKind(value), 'int32', { fields: [] }));
}

function unmarshalError(value: string, type: string, at: Context): string {
  if (at.struct !== undefined || at.fields.length > 0) {
    return `json: cannot unmarshal ${value} into Go struct field ${at.struct ?? ''}.${at.fields.join('.')} of type ${type}`;
  }
  return `json: cannot unmarshal ${value} into Go value of type ${type}`;
}

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** A number as the body wrote it, as far as a parsed number tells: Go quotes the literal. */
function goNumber(value: number): string {
  return String(value).replace('e+', 'e');
}

function types(node: JsonSchema): string[] {
  const out: string[] = [];
  for (const n of structuralNodes(node)) {
    const t = n.type;
    if (typeof t === 'string') out.push(t);
    else if (Array.isArray(t)) out.push(...t.map(String));
  }
  return out;
}

function isQuantity(node: JsonSchema): boolean {
  return structuralNodes(node).some((n) => n.pattern === QUANTITY_PATTERN);
}

function hasProperties(node: JsonSchema): boolean {
  return structuralNodes(node).some((n) => n.properties !== undefined && Object.keys(n.properties).length > 0);
}

function goKind(node: JsonSchema, field: string, parent: StructName): GoKind {
  if (preservesUnknownFields(node) || isEmbeddedResource(node)) return { kind: 'any' };
  if (structuralNodes(node).some((n) => n['x-svc-int-or-string'] === true)) return { kind: 'intOrString' };
  if (isQuantity(node)) return { kind: 'quantity' };
  const t = types(node);
  if (t.length !== 1) return { kind: 'any' };
  switch (t[0]) {
    case 'string': {
      const format = structuralNodes(node).find((n) => n.format !== undefined)?.format;
      if (format === 'date-time') return { kind: 'time' };
      return { kind: format === 'byte' ? 'bytes' : 'string' };
    }
    case 'boolean':
      return { kind: 'bool' };
    case 'number':
      return { kind: 'float64' };
    case 'integer':
      return { kind: 'int', bits: structuralNodes(node).some((n) => n.format === 'int32') ? 32 : 64 };
    case 'array':
      return { kind: 'slice', items: arrayItems(node) };
    case 'object': {
      if (hasProperties(node)) return { kind: 'struct', name: structName(node, field, parent) };
      const values = objectChild(node, '').schema;
      return values === undefined ? { kind: 'any' } : { kind: 'map', values };
    }
    default:
      return { kind: 'any' };
  }
}

/** Go's name of the type a schema node decodes into, as reflect prints it. */
function goTypeName(node: JsonSchema, field: string, parent: StructName): string {
  const go = goKind(node, field, parent);
  switch (go.kind) {
    case 'any':
      return 'interface {}';
    case 'string':
    case 'bool':
    case 'float64':
      return go.kind;
    case 'bytes':
      return '[]uint8';
    case 'int':
      return `int${go.bits}`;
    case 'quantity':
      return 'resource.Quantity';
    case 'intOrString':
      return 'intstr.IntOrString';
    case 'time':
      return 'v1.Time';
    case 'slice':
      return `[]${go.items === undefined ? 'interface {}' : goTypeName(go.items, singular(field), parent)}`;
    case 'map':
      return `map[string]${go.values === undefined ? 'interface {}' : goTypeName(go.values, field, parent)}`;
    case 'struct':
      return `${go.name.pkg}.${go.name.struct}`;
  }
}

/**
 * A struct's Go name: its OpenAPI component's for a named struct; by Kubernetes' conventions a
 * `metadata` is metav1's ObjectMeta and a kind's `spec` and `status` are `<Kind>Spec` and
 * `<Kind>Status`; any other inline struct is named after its field, in its parent's package.
 */
function structName(node: JsonSchema, field: string, parent: StructName): StructName {
  const named = structuralNodes(node)
    .map((n) => (n.properties ? namedStructs().get(n.properties) : undefined))
    .find((n) => n !== undefined);
  if (named) {
    const parts = named.component.split('.');
    return { struct: parts[parts.length - 1], pkg: parts[parts.length - 2] };
  }
  if (field === 'metadata') return { struct: 'ObjectMeta', pkg: 'v1' };
  if ((field === 'spec' || field === 'status') && parent.kind === true) {
    return { struct: `${parent.struct}${capitalize(field)}`, pkg: parent.pkg };
  }
  return { struct: capitalize(field), pkg: parent.pkg };
}

function capitalize(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** The element of a list field named in the plural (`hostAliases` holds a `HostAlias`). */
function singular(field: string): string {
  if (field.endsWith('ies')) return `${field.slice(0, -3)}y`;
  if (field.endsWith('ses')) return field.slice(0, -2);
  return field.endsWith('s') ? field.slice(0, -1) : field;
}
