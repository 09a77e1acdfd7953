import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { protobufKinds, protobufMessageType, type JsonSchema } from '@svc/machinery';
import type { Field, Type } from 'protobufjs';
import { DeleteOptionsSchema } from '../meta/delete-options';
import { StatusSchema } from '../meta/status';
import { EvictionSchema } from './policy/pod-disruption-budget';
import { builtinScheme } from '../scheme/builtin-scheme';

/**
 * The protobuf table (libs/machinery/src/protobuf/kubernetes-schema.ts) is kept by hand: its field
 * numbers are Kubernetes' own, so it cannot be derived from the kinds' schemas. This checks it
 * against both sides instead:
 * - Kubernetes: every field of the table has the number, type and label of Kubernetes' message
 *   (testing/kubernetes-protobuf-fields.json, extracted from Kubernetes' generated.proto files by
 *   testing/extract-kubernetes-protobuf-fields.js);
 * - the kinds: every field a message carries exists in the kind's schema at that place with a
 *   compatible type, and every field of the kind's schema that Kubernetes' message carries is in the
 *   table, except the gaps listed below.
 */

interface UpstreamField {
  id: number;
  type: string;
  rule: string;
}

interface Upstream {
  source: Record<string, string>;
  messages: Record<string, { file: string; fields: Record<string, UpstreamField> }>;
}

const UPSTREAM = JSON.parse(readFileSync(join(__dirname, 'testing/kubernetes-protobuf-fields.json'), 'utf8')) as Upstream;

/**
 * Fields of the kinds' schemas that Kubernetes' messages carry and the table does not (`Message.field`):
 * a protobuf body that holds them loses them. The table was written for the bodies kubectl's
 * generators send; each entry is a known gap, not a choice, and a closed gap must leave the list.
 */
const KNOWN_GAPS: readonly string[] = [
  'Pod.status',
  'Deployment.status',
  'ReplicaSet.status',
  'PodDisruptionBudget.status',
  ...[
    'affinity',
    'dnsConfig',
    'ephemeralContainers',
    'hostAliases',
    'hostUsers',
    'os',
    'overhead',
    'preemptionPolicy',
    'readinessGates',
    'resourceClaims',
    'resources',
    'runtimeClassName',
    'schedulingGates',
    'securityContext',
    'serviceAccount',
    'setHostnameAsFQDN',
    'shareProcessNamespace',
    'topologySpreadConstraints',
    'volumes',
  ].map((f) => `PodSpec.${f}`),
  ...['envFrom', 'lifecycle', 'livenessProbe', 'readinessProbe', 'resizePolicy', 'restartPolicy', 'securityContext', 'startupProbe', 'volumeDevices'].map(
    (f) => `Container.${f}`,
  ),
  'EnvVar.valueFrom',
  'VolumeMount.mountPropagation',
  'VolumeMount.recursiveReadOnly',
  'VolumeMount.subPathExpr',
  'ResourceRequirements.claims',
];

function typesOf(schema: JsonSchema): string[] {
  if (schema.type === undefined) return [];
  return Array.isArray(schema.type) ? schema.type : [schema.type];
}

/** Messages that stand for one JSON value rather than an object with the message's fields. */
const VALUE_MESSAGES: Readonly<Record<string, (schema: JsonSchema) => boolean>> = {
  Time: (s) => typesOf(s).includes('string') && s.format === 'date-time',
  MicroTime: (s) => typesOf(s).includes('string') && s.format === 'date-time',
  IntOrString: (s) => s['x-svc-int-or-string'] === true,
  Quantity: (s) => typesOf(s).includes('string'),
  FieldsV1: (s) => typesOf(s).includes('object'),
};

const SCALAR_TYPES: Readonly<Record<string, string>> = {
  string: 'string',
  bytes: 'string',
  bool: 'boolean',
  int32: 'integer',
  int64: 'integer',
};

interface Walk {
  /** Problems found: a field the schema lacks, a type that does not fit, a gap not listed. */
  problems: string[];
  /** `Message.field` of every gap found, with the first place a schema has the field. */
  gaps: Map<string, string>;
  /** `Message.field` of every field checked against a schema. */
  checked: Set<string>;
}

/** Whether one value of `field` (one item, for a list or a map) fits `schema`; walks nested messages. */
function checkValue(field: Field, schema: JsonSchema, path: string, walk: Walk): void {
  const message = field.resolvedType as Type | null;
  if (message === null) {
    const want = SCALAR_TYPES[field.type];
    if (!typesOf(schema).includes(want)) walk.problems.push(`${path}: ${field.type} in protobuf, ${JSON.stringify(schema.type)} in the schema`);
    return;
  }
  const valueCheck = VALUE_MESSAGES[message.name];
  if (valueCheck) {
    if (!valueCheck(schema))
      walk.problems.push(`${path}: ${message.name} in protobuf does not fit the schema ${JSON.stringify({ ...schema, properties: undefined })}`);
    return;
  }
  if (!typesOf(schema).includes('object') || !schema.properties) {
    walk.problems.push(`${path}: message ${message.name} in protobuf, no object with properties in the schema`);
    return;
  }
  checkMessage(message, schema, path, walk);
}

function checkMessage(message: Type, schema: JsonSchema, path: string, walk: Walk): void {
  const properties = schema.properties ?? {};
  for (const field of message.fieldsArray) {
    const fieldPath = `${path}.${field.name}`;
    walk.checked.add(`${message.name}.${field.name}`);
    const property = properties[field.name];
    if (!property) {
      walk.problems.push(`${fieldPath}: in the protobuf message ${message.name}, not in the schema`);
      continue;
    }
    if (field.map) {
      if (!typesOf(property).includes('object') || typeof property.additionalProperties !== 'object') {
        walk.problems.push(`${fieldPath}: a map in protobuf, no additionalProperties map in the schema`);
      } else {
        checkValue(field, property.additionalProperties, `${fieldPath}{}`, walk);
      }
    } else if (field.repeated) {
      if (!typesOf(property).includes('array') || !property.items) walk.problems.push(`${fieldPath}: repeated in protobuf, no array in the schema`);
      else checkValue(field, property.items, `${fieldPath}[]`, walk);
    } else {
      checkValue(field, property, fieldPath, walk);
    }
  }
  // The other direction: what Kubernetes' message carries and this schema has must be in the table.
  const upstream = UPSTREAM.messages[message.name];
  if (!upstream) {
    walk.problems.push(`${path}: message ${message.name} is not in testing/kubernetes-protobuf-fields.json (run the extractor)`);
    return;
  }
  for (const name of Object.keys(upstream.fields)) {
    if (message.fields[name] || !properties[name]) continue;
    if (!walk.gaps.has(`${message.name}.${name}`)) walk.gaps.set(`${message.name}.${name}`, `${path}.${name}`);
  }
}

function schemaOf(apiVersion: string, kind: string): JsonSchema {
  // Bodies that are not stored kinds: the options of a delete and the body of a pod's eviction.
  if (kind === 'Status') return StatusSchema;
  if (kind === 'DeleteOptions') return DeleteOptionsSchema;
  if (kind === 'Eviction') return EvictionSchema;
  const def = builtinScheme().byApiVersionKind(apiVersion, kind);
  if (!def) throw new Error(`no kind ${kind} in ${apiVersion}`);
  return def.schema;
}

/** Every message the table declares that the protobuf kinds reach, by name. */
function reachableMessages(): Map<string, Type> {
  const out = new Map<string, Type>();
  const visit = (type: Type) => {
    if (out.has(type.name)) return;
    out.set(type.name, type);
    for (const field of type.fieldsArray) if (field.resolvedType && 'fieldsArray' in field.resolvedType) visit(field.resolvedType);
  };
  for (const { apiVersion, kind } of protobufKinds()) visit(protobufMessageType(apiVersion, kind));
  return out;
}

describe("the protobuf table of Kubernetes' messages", () => {
  it('gives every field the number, type and label of Kubernetes’ own message', () => {
    const problems: string[] = [];
    for (const message of reachableMessages().values()) {
      const upstream = UPSTREAM.messages[message.name];
      if (!upstream) {
        problems.push(`${message.name}: not in Kubernetes' proto files as extracted`);
        continue;
      }
      for (const field of message.fieldsArray) {
        const theirs = upstream.fields[field.name];
        const rule = field.map ? `map<${(field as Field & { keyType: string }).keyType}>` : field.repeated ? 'repeated' : 'optional';
        const ours = { id: field.id, type: field.type, rule };
        if (!theirs) problems.push(`${message.name}.${field.name}: Kubernetes' message has no such field`);
        else if (JSON.stringify(ours) !== JSON.stringify(theirs))
          problems.push(`${message.name}.${field.name}: ${JSON.stringify(ours)} here, ${JSON.stringify(theirs)} in Kubernetes`);
      }
    }
    expect(problems).toEqual([]);
    expect(reachableMessages().size).toBeGreaterThan(40);
  });

  it("carries only fields of the kinds' schemas, with compatible types, and every schema field Kubernetes carries but the known gaps", () => {
    const walk: Walk = { problems: [], gaps: new Map(), checked: new Set() };
    for (const { apiVersion, kind } of protobufKinds()) checkMessage(protobufMessageType(apiVersion, kind), schemaOf(apiVersion, kind), kind, walk);
    expect(walk.problems).toEqual([]);
    const unlisted = [...walk.gaps].filter(([gap]) => !KNOWN_GAPS.includes(gap)).map(([gap, where]) => `${gap} (${where})`);
    expect(unlisted).toEqual([]);
    // A gap closed (or a field gone from the schema) leaves the list too.
    expect(KNOWN_GAPS.filter((gap) => !walk.gaps.has(gap))).toEqual([]);
    // Every field of every reachable message was checked against some kind's schema.
    const unchecked = [...reachableMessages().values()]
      .flatMap((m) => (VALUE_MESSAGES[m.name] ? [] : m.fieldsArray.map((f) => `${m.name}.${f.name}`)))
      .filter((f) => !walk.checked.has(f));
    expect(unchecked).toEqual([]);
  });

  it('names the Kubernetes sources it was checked against', () => {
    expect(Object.keys(UPSTREAM.source).sort()).toEqual(['k8s.io/api', 'k8s.io/apimachinery']);
  });
});
