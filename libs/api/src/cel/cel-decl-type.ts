import { isRecord } from '@svc/machinery';
import type { JsonSchema } from '../schema/json-schema';
import { T, type CelCheckedType } from './cel-checker-types';

/**
 * The type a CEL expression sees for a schema node, with the two figures Kubernetes' cost estimate
 * reads (k8s.io/apiserver/pkg/cel/common/schemas.go, SchemaDeclType): the most elements a value can
 * have (bytes of a string, four per character of a maxLength; items of a list; entries of a map) and
 * the fewest bytes its JSON can take, from which the size of an unbounded list or map is derived.
 */

/** Kubernetes' largest request body (celconfig.MaxRequestSizeBytes): what an unbounded value is sized from. */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

export type CelTypeKind =
  | 'bool'
  | 'int'
  | 'uint'
  | 'double'
  | 'string'
  | 'bytes'
  | 'null'
  | 'duration'
  | 'timestamp'
  | 'list'
  | 'map'
  | 'struct'
  | 'dyn'
  | 'type'
  | 'opaque'
  | 'optional';

export interface CelDeclType {
  kind: CelTypeKind;
  /** A struct's or opaque type's name, where it decides a cost (kubernetes.Quantity, net.IP, ...). */
  name?: string;
  /** A struct's fields, by their CEL (escaped) names. */
  fields?: Record<string, CelDeclType>;
  /** A list's items, a map's values, an optional's value. */
  elem?: CelDeclType;
  /** A map's keys. */
  key?: CelDeclType;
  /** Bytes of a string, items of a list, entries of a map; 0 where no bound is declared for a scalar. */
  maxElements: number;
  /** The fewest bytes a JSON serialization of a value takes. */
  minSerializedSize: number;
}

const simple = (kind: CelTypeKind, minSerializedSize: number, maxElements = 0): CelDeclType => ({ kind, minSerializedSize, maxElements });

export const DECL = {
  bool: (): CelDeclType => simple('bool', 4),
  int: (): CelDeclType => simple('int', 1),
  uint: (): CelDeclType => simple('uint', 1),
  double: (): CelDeclType => simple('double', 1),
  string: (): CelDeclType => simple('string', 2),
  bytes: (): CelDeclType => simple('bytes', 2),
  null: (): CelDeclType => simple('null', 4),
  dyn: (): CelDeclType => simple('dyn', 1),
  duration: (): CelDeclType => simple('duration', 3),
  timestamp: (): CelDeclType => simple('timestamp', 12),
  type: (): CelDeclType => simple('type', 1),
  list: (elem: CelDeclType, maxElements = 0): CelDeclType => ({ kind: 'list', elem, maxElements, minSerializedSize: 2 }),
  map: (key: CelDeclType, elem: CelDeclType, maxElements = 0): CelDeclType => ({ kind: 'map', key, elem, maxElements, minSerializedSize: 2 }),
  opaque: (name: string): CelDeclType => ({ kind: 'opaque', name, maxElements: 0, minSerializedSize: 1 }),
  struct: (name: string): CelDeclType => ({ kind: 'struct', name, fields: {}, maxElements: 0, minSerializedSize: 2 }),
  optional: (elem: CelDeclType): CelDeclType => ({ kind: 'optional', elem, maxElements: 0, minSerializedSize: 1 }),
};

const RESERVED = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

/** Kubernetes' escaping of a property name for CEL (`foo-bar` is `foo__dash__bar`); undefined where it has none. */
export function escapeCelName(name: string): string | undefined {
  if (name.length === 0 || (name[0] >= '0' && name[0] <= '9')) return undefined;
  if (RESERVED.has(name)) return `__${name}__`;
  if (!/^[a-zA-Z0-9_./-]*$/.test(name)) return undefined;
  return name.replace(/__|[-./]/g, (s) => (s === '__' ? '__underscores__' : s === '.' ? '__dot__' : s === '-' ? '__dash__' : '__slash__'));
}

const nonNegative = (n: number) => (n < 0 ? 0 : Math.floor(n));
const count = (n: unknown) => (typeof n === 'number' ? nonNegative(n) : undefined);

function isString(schema: unknown): boolean {
  return isRecord(schema) && schema.type === 'string';
}

/** As Kubernetes' WithTypeAndObjectMeta: a resource's root always shows kind, apiVersion and metadata.name/generateName. */
function withTypeAndObjectMeta(schema: JsonSchema): JsonSchema {
  const props = schema.properties ?? {};
  const meta = props.metadata;
  if (
    isString(props.kind) &&
    isString(props.apiVersion) &&
    isRecord(meta) &&
    meta.type === 'object' &&
    isString(meta.properties?.name) &&
    isString(meta.properties?.generateName)
  ) {
    return schema;
  }
  return {
    ...schema,
    properties: {
      ...props,
      kind: { type: 'string' },
      apiVersion: { type: 'string' },
      metadata: { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } },
    },
  };
}

function maxStringLengthPerRequest(schema: JsonSchema): number {
  switch (schema.format) {
    case 'duration':
    case 'date-time':
      return 32;
    case 'date':
      return 12;
    default:
      return MAX_REQUEST_SIZE_BYTES - 2;
  }
}

/** The CEL type of a (structural, `x-svc-` spelled) schema node, or undefined where CEL does not see it. */
export function schemaDeclType(schema: JsonSchema | undefined, isResourceRoot: boolean, depth = 0): CelDeclType | undefined {
  if (!isRecord(schema) || depth > 100) return undefined;
  if (schema['x-svc-int-or-string'] === true) return { kind: 'dyn', maxElements: MAX_REQUEST_SIZE_BYTES - 2, minSerializedSize: 1 };
  const s = isResourceRoot ? withTypeAndObjectMeta(schema) : schema;
  const embedded = (child: JsonSchema) => child['x-svc-embedded-resource'] === true;
  switch (s.type) {
    case 'array': {
      if (!isRecord(s.items)) return undefined;
      const items = schemaDeclType(s.items, embedded(s.items), depth + 1);
      if (items === undefined) return undefined;
      const maxItems = count(s.maxItems) ?? Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (items.minSerializedSize + 1));
      return DECL.list(items, maxItems);
    }
    case 'object': {
      if (isRecord(s.additionalProperties)) {
        const values = schemaDeclType(s.additionalProperties, embedded(s.additionalProperties), depth + 1);
        if (values === undefined) return undefined;
        const maxProperties = count(s.maxProperties) ?? Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (values.minSerializedSize + 6));
        return DECL.map(DECL.string(), values, maxProperties);
      }
      const required = new Set(Array.isArray(s.required) ? s.required : []);
      const fields: Record<string, CelDeclType> = {};
      let minSerializedSize = 2;
      for (const [name, prop] of Object.entries(s.properties ?? {})) {
        const field = schemaDeclType(prop, isRecord(prop) && embedded(prop), depth + 1);
        if (field === undefined) continue;
        const escaped = escapeCelName(name);
        if (escaped !== undefined) fields[escaped] = field;
        if (required.has(name) && (prop as Record<string, unknown>).default === undefined) {
          minSerializedSize += Buffer.byteLength(name) + field.minSerializedSize + 4;
        }
      }
      return { kind: 'struct', name: 'object', fields, maxElements: 0, minSerializedSize };
    }
    case 'string': {
      switch (s.format) {
        case 'byte':
          return { kind: 'bytes', maxElements: count(s.maxLength) ?? maxStringLengthPerRequest(s), minSerializedSize: 2 };
        case 'duration':
          return { kind: 'duration', maxElements: maxStringLengthPerRequest(s), minSerializedSize: 3 };
        case 'date':
          return { kind: 'timestamp', maxElements: maxStringLengthPerRequest(s), minSerializedSize: 12 };
        case 'date-time':
          return { kind: 'timestamp', maxElements: maxStringLengthPerRequest(s), minSerializedSize: 21 };
        default:
          break;
      }
      const maxLength = count(s.maxLength);
      let maxElements: number;
      if (maxLength !== undefined) maxElements = maxLength * 4;
      else if (Array.isArray(s.enum) && s.enum.length > 0) {
        maxElements = 0;
        for (const v of s.enum) if (typeof v === 'string') maxElements = Math.max(maxElements, Buffer.byteLength(v));
      } else maxElements = maxStringLengthPerRequest(s);
      return { kind: 'string', maxElements, minSerializedSize: 2 };
    }
    case 'boolean':
      return DECL.bool();
    case 'number':
      return DECL.double();
    case 'integer':
      return DECL.int();
    default:
      return undefined;
  }
}

/** How often a rule on a node of this type can run where an unbounded list or map holds it (maxCardinality). */
export function unboundedCardinality(declType: CelDeclType): number {
  return Math.floor(MAX_REQUEST_SIZE_BYTES / (declType.minSerializedSize + 1));
}

/** A scope's declared variable types and the fields of the object types they reach (see cel-checker). */
export interface DeclaredTypes {
  variables: Map<string, CelCheckedType>;
  structs: Map<string, Map<string, CelCheckedType>>;
}

/**
 * The checker's type of a declared type, its object types named as Kubernetes' MaybeAssignTypeName
 * names them (`<root>.spec`, `<root>.spec.ports.@idx`, `<root>.labels.@elem`) and their fields
 * recorded in `structs`. Named types (kubernetes.AdmissionRequest) keep their names.
 */
export function checkedTypeOf(decl: CelDeclType, name: string, structs: Map<string, Map<string, CelCheckedType>>, depth = 0): CelCheckedType {
  if (depth > 100) return T.dyn;
  switch (decl.kind) {
    case 'bool':
    case 'int':
    case 'uint':
    case 'double':
    case 'string':
    case 'bytes':
    case 'duration':
    case 'timestamp':
    case 'dyn':
      return T[decl.kind];
    case 'null':
      return T.null;
    case 'type':
      return T.type();
    case 'list':
      return T.list(checkedTypeOf(decl.elem ?? DECL.dyn(), `${name}.@idx`, structs, depth + 1));
    case 'map':
      return T.map(
        checkedTypeOf(decl.key ?? DECL.string(), `${name}.@key`, structs, depth + 1),
        checkedTypeOf(decl.elem ?? DECL.dyn(), `${name}.@elem`, structs, depth + 1),
      );
    case 'optional':
      return T.optional(checkedTypeOf(decl.elem ?? DECL.dyn(), name, structs, depth + 1));
    case 'opaque':
      return T.opaque(decl.name ?? 'opaque');
    case 'struct': {
      const typeName = decl.name !== undefined && decl.name !== 'object' ? decl.name : name;
      if (!structs.has(typeName)) {
        const fields = new Map<string, CelCheckedType>();
        structs.set(typeName, fields);
        for (const [field, type] of Object.entries(decl.fields ?? {})) fields.set(field, checkedTypeOf(type, `${typeName}.${field}`, structs, depth + 1));
      }
      return T.struct(typeName);
    }
    default:
      return T.dyn;
  }
}

/**
 * Kubernetes' unstable name of a CRD rule's `self` type (`selfType<nanoseconds>`): it shows in messages
 * and is new for every write, so no rule can depend on it.
 */
export function selfTypeName(): string {
  return `selfType${Number(process.hrtime.bigint() % 1_000_000_000n)}`;
}

/** `self` and `oldSelf` of a CRD rule on a node of type `decl`; `oldSelf` is optional with optionalOldSelf. */
export function ruleDeclarations(decl: CelDeclType, optionalOldSelf: boolean, rootName = selfTypeName()): DeclaredTypes {
  const structs = new Map<string, Map<string, CelCheckedType>>();
  const self = checkedTypeOf(decl, rootName, structs);
  return {
    variables: new Map([
      ['self', self],
      ['oldSelf', optionalOldSelf ? T.optional(self) : self],
    ]),
    structs,
  };
}
