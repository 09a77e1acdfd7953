import fc from 'fast-check';
import { FIXTURE_FINALIZER, fixtureBody } from './fixtures';
import { NS } from './fuzz-input';
import type { ResourceModel } from './fuzz-model';
import { SchemaArbitraries } from './schema-arbitrary';

/** A generated JSON value with why a server must refuse it. */
export interface GeneratedDocument {
  value: unknown;
  label: string;
  mustRefuse: string[];
}

/** Values that are wrong almost anywhere: empty, null, huge, NUL, a lone surrogate. */
export const SURPRISES: unknown[] = [
  '',
  null,
  true,
  0,
  -1,
  1e308,
  -0,
  2 ** 53 + 1,
  'x'.repeat(1000),
  [],
  {},
  '\u0000',
  '\ud800',
  'a\udc00b',
  { $patch: 'delete' },
];

const schemaCache = new WeakMap<ResourceModel, SchemaArbitraries>();

function schemaArbitraries(resource: ResourceModel): SchemaArbitraries {
  let arbs = schemaCache.get(resource);
  if (arbs === undefined) {
    arbs = new SchemaArbitraries(resource.components);
    schemaCache.set(resource, arbs);
  }
  return arbs;
}

const LABEL_KEYS = fc.constantFrom('app', 'fuzz', 'k', 'fz.example.com/key', 'a'.repeat(64), 'Bad Key', '');
const LABEL_VALUES = fc.oneof(fc.constantFrom('fz', 'x', '', 'a'.repeat(64), 'bad value', '\ud800'), fc.constant(null));
const ANNOTATION_VALUES = fc.oneof(fc.string({ maxLength: 30 }), fc.constant(null), fc.constant('x'.repeat(300_000)));

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Replaces the value at one path of a copy of `value` (a path index picks among the object's paths). */
function mutate(value: unknown, pick: number, replacement: unknown): unknown {
  const copy = structuredClone(value);
  const paths: Array<Array<string | number>> = [];
  const walk = (node: unknown, path: Array<string | number>) => {
    if (path.length > 0) paths.push(path);
    if (Array.isArray(node)) node.forEach((item, i) => walk(item, [...path, i]));
    else if (isRecord(node)) for (const [k, v] of Object.entries(node)) walk(v, [...path, k]);
  };
  walk(copy, []);
  if (paths.length === 0) return replacement;
  const path = paths[pick % paths.length];
  let node = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path[path.length - 1]] = replacement;
  return copy;
}

function withIdentity(value: unknown, resource: ResourceModel, name: string): Record<string, unknown> {
  const object = isRecord(value) ? { ...value } : {};
  object.apiVersion = resource.apiVersion;
  object.kind = resource.kind;
  const metadata = isRecord(object.metadata) ? { ...object.metadata } : {};
  metadata.name = name;
  delete metadata.namespace;
  for (const field of [
    'uid',
    'resourceVersion',
    'creationTimestamp',
    'deletionTimestamp',
    'managedFields',
    'generation',
    'ownerReferences',
    'deletionGracePeriodSeconds',
  ])
    delete metadata[field];
  object.metadata = metadata;
  return object;
}

/**
 * Whole objects of a kind: the fixture template with edits (they mostly pass validation), values
 * from the kind's schema, either of them with one field replaced by a surprise, and now and then
 * JSON that is no object at all.
 */
export function objectArbitrary(resource: ResourceModel, name: string): fc.Arbitrary<GeneratedDocument> {
  const template = fixtureBody(resource, name, NS);
  const base: Array<fc.Arbitrary<GeneratedDocument>> = [];
  if (template !== undefined) {
    base.push(
      fc
        .record({
          labels: fc.dictionary(
            LABEL_KEYS,
            LABEL_VALUES.filter((v) => v !== null),
            { maxKeys: 2 },
          ),
          keepFinalizer: fc.constantFrom(false, false, false, true),
        })
        .map(({ labels, keepFinalizer }) => {
          const object = structuredClone(template) as Record<string, unknown> & { metadata: Record<string, unknown> };
          object.metadata.labels = { ...(object.metadata.labels as Record<string, string>), ...labels };
          // Pool objects (not fixtures) must not linger Terminating for ever: no finalizer on them unless asked.
          if (!keepFinalizer) delete object.metadata.finalizers;
          return { value: object, label: 'template', mustRefuse: [] };
        }),
    );
  }
  if (resource.schema !== undefined) {
    base.push(
      schemaArbitraries(resource)
        .of(resource.schema)
        .map((value) => ({ value: withIdentity(value, resource, name), label: 'schema', mustRefuse: [] })),
    );
  }
  if (base.length === 0) base.push(fc.constant({ value: withIdentity({}, resource, name), label: 'empty', mustRefuse: [] }));
  const valid = fc.oneof(...base);
  return fc.oneof(
    { weight: 6, arbitrary: valid },
    {
      weight: 2,
      arbitrary: fc
        .tuple(valid, fc.nat(), fc.constantFrom(...SURPRISES))
        .map(([doc, pick, surprise]) => ({ value: keepName(mutate(doc.value, pick, surprise), doc.value), label: `${doc.label}-mutated`, mustRefuse: [] })),
    },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((value) => ({ value, label: 'random-json', mustRefuse: [] })) },
  );
}

/** A mutation of the name itself is an identity change the caller did not ask for: undo it. */
function keepName(mutated: unknown, original: unknown): unknown {
  if (isRecord(mutated) && isRecord(original) && isRecord(original.metadata)) {
    const metadata = isRecord(mutated.metadata) ? mutated.metadata : undefined;
    if (metadata !== undefined) {
      metadata.name = original.metadata.name;
      if (isRecord(original.metadata) && original.metadata.finalizers === undefined) delete metadata.finalizers;
    }
    if (mutated.kind !== original.kind || mutated.apiVersion !== original.apiVersion) {
      mutated.kind = original.kind;
      mutated.apiVersion = original.apiVersion;
    }
  }
  return mutated;
}

/** Changes of an object's identity (name, namespace, kind, apiVersion), which every write must refuse. */
export function identityChangeArbitrary(resource: ResourceModel): fc.Arbitrary<{ field: string; value: string }> {
  const fields = ['metadata.name', 'kind', 'apiVersion', ...(resource.namespaced ? ['metadata.namespace'] : [])];
  return fc
    .record({
      field: fc.constantFrom(...fields),
      value: fc.constantFrom('fz-other', 'Other', 'v9', 'apps/v1', 'default', ''),
    })
    .filter(
      ({ field, value }) =>
        (field === 'metadata.name' || value !== '') &&
        !(field === 'apiVersion' && value === resource.apiVersion) &&
        // The request itself may be in `default`: naming it again would change nothing.
        !(field === 'metadata.namespace' && value === 'default'),
    );
}

export function setPath(object: Record<string, unknown>, dotted: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(object);
  const keys = dotted.split('.');
  let node = copy;
  for (const key of keys.slice(0, -1)) {
    if (!isRecord(node[key])) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1]] = value;
  return copy;
}

/** Merge patches: label, annotation and field edits, nulls that delete, schema fragments, and the hostile ones. */
export function mergePatchArbitrary(resource: ResourceModel): fc.Arbitrary<GeneratedDocument> {
  const fragment = resource.schema !== undefined ? schemaArbitraries(resource).of(resource.schema) : fc.constant({});
  return fc.oneof<Array<fc.MaybeWeightedArbitrary<GeneratedDocument>>>(
    {
      weight: 4,
      arbitrary: fc
        .dictionary(LABEL_KEYS, LABEL_VALUES, { maxKeys: 3 })
        .map((labels) => ({ value: { metadata: { labels } }, label: 'labels', mustRefuse: [] })),
    },
    {
      weight: 2,
      arbitrary: fc
        .dictionary(fc.constantFrom('note', 'fz.example.com/x', 'k'), ANNOTATION_VALUES, { maxKeys: 2 })
        .map((annotations) => ({ value: { metadata: { annotations } }, label: 'annotations', mustRefuse: [] })),
    },
    {
      weight: 2,
      arbitrary: fc
        .dictionary(fc.constantFrom('a', 'b', 'c', 'bad key'), fc.oneof(fc.string({ maxLength: 10 }), fc.constant(null), fc.constantFrom(...SURPRISES)), {
          maxKeys: 3,
        })
        .map((data) => ({ value: { data }, label: 'data', mustRefuse: [] })),
    },
    {
      weight: 3,
      arbitrary: fragment.map((value) => {
        const doc = isRecord(value) ? { ...value } : {};
        delete doc.apiVersion;
        delete doc.kind;
        delete doc.metadata;
        return { value: doc, label: 'schema-fragment', mustRefuse: [] };
      }),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          { spec: null },
          { status: null },
          { data: null },
          { metadata: { finalizers: null } },
          { metadata: { finalizers: [FIXTURE_FINALIZER, 'x/y'] } },
          { metadata: { labels: null, annotations: null } },
        )
        .map((value) => ({ value, label: 'nulls', mustRefuse: [] })),
    },
    {
      weight: 2,
      arbitrary: fc.constant<GeneratedDocument>({
        value: { metadata: null },
        label: 'metadata-null',
        mustRefuse: ['a merge patch that deletes metadata (the object loses its name)'],
      }),
    },
    {
      weight: 2,
      arbitrary: identityChangeArbitrary(resource).map(({ field, value }) => ({
        value: setPath({}, field, value),
        label: `identity-${field}`,
        mustRefuse: [`a patch that changes ${field} to ${JSON.stringify(value)}`],
      })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom<unknown>([], 'x', 1, null, true)
        .map((value) => ({ value, label: 'not-an-object', mustRefuse: [`a merge patch that replaces the object with ${JSON.stringify(value)}`] })),
    },
  );
}

interface JsonPatchOp {
  op: string;
  path?: string;
  from?: string;
  value?: unknown;
}

const SAFE_PATHS = [
  '/metadata/labels/x',
  '/metadata/annotations/y',
  '/metadata/labels',
  '/data/k',
  '/data',
  '/spec/replicas',
  '/spec',
  '/status',
  '/metadata/finalizers/-',
  '/metadata/finalizers/0',
  '/spec/free/a',
  '/~0~1',
  '/data/~1escaped',
  '/metadata/labels/a~1b',
  '/nope/deeper',
  '/metadata/annotations/0',
];

function opArbitrary(): fc.Arbitrary<{ op: JsonPatchOp; breaks?: string }> {
  const value = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(...SURPRISES));
  const path = fc.constantFrom(...SAFE_PATHS);
  return fc.oneof(
    { weight: 8, arbitrary: fc.record({ op: fc.constantFrom('add', 'replace', 'test'), path, value }).map((op) => ({ op })) },
    { weight: 3, arbitrary: fc.record({ op: fc.constant('remove'), path }).map((op) => ({ op })) },
    { weight: 3, arbitrary: fc.record({ op: fc.constantFrom('move', 'copy'), from: path, path }).map((op) => ({ op })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom<JsonPatchOp>({ op: 'bogus', path: '/a' }, { op: 'add' }, { op: 'add', path: 'no-slash', value: 1 }, { op: 'copy', path: '/a' })
        .map((op) => ({ op })),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom<{ op: JsonPatchOp; breaks: string }>(
          { op: { op: 'remove', path: '/metadata' }, breaks: 'removes metadata' },
          { op: { op: 'remove', path: '/metadata/name' }, breaks: 'removes metadata.name' },
          { op: { op: 'replace', path: '/metadata/name', value: 'fz-other' }, breaks: 'renames the object' },
          { op: { op: 'replace', path: '', value: {} }, breaks: 'replaces the whole object' },
          { op: { op: 'replace', path: '/metadata', value: { labels: { a: 'b' } } }, breaks: 'replaces metadata' },
          { op: { op: 'replace', path: '/kind', value: 'Other' }, breaks: 'changes kind' },
          { op: { op: 'replace', path: '/apiVersion', value: 'v9' }, breaks: 'changes apiVersion' },
          { op: { op: 'move', from: '/metadata/name', path: '/metadata/generateName' }, breaks: 'moves the name away' },
        )
        .map((entry) => entry),
    },
  );
}

/** JSON patches: a few operations of every kind over paths that exist and do not, some breaking identity. */
export function jsonPatchArbitrary(resource: ResourceModel): fc.Arbitrary<GeneratedDocument> {
  const namespaceChange: Array<fc.Arbitrary<{ op: JsonPatchOp; breaks?: string }>> = resource.namespaced
    ? [fc.constant({ op: { op: 'replace', path: '/metadata/namespace', value: 'default' }, breaks: 'moves the object to another namespace' })]
    : [];
  const op = namespaceChange.length > 0 ? fc.oneof({ weight: 20, arbitrary: opArbitrary() }, { weight: 1, arbitrary: namespaceChange[0] }) : opArbitrary();
  return fc.oneof(
    {
      weight: 10,
      arbitrary: fc.array(op, { minLength: 0, maxLength: 6 }).map((ops) => {
        const broken = ops.filter((o) => o.breaks !== undefined).map((o) => `a JSON patch that ${o.breaks}`);
        return { value: ops.map((o) => o.op), label: broken.length > 0 ? 'identity' : 'ops', mustRefuse: broken.slice(0, 1) };
      }),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom<unknown>({}, 'x', null, [1], [[]], { op: 'add', path: '/a', value: 1 })
        .map((value) => ({ value, label: 'not-a-list-of-ops', mustRefuse: [] })),
    },
  );
}

/** Strategic merge patches: merge-patch shapes plus the directives ($patch, $retainKeys, $setElementOrder, $deleteFromPrimitiveList). */
export function strategicPatchArbitrary(resource: ResourceModel): fc.Arbitrary<GeneratedDocument> {
  const directives = fc.constantFrom<GeneratedDocument>(
    { value: { $patch: 'delete' }, label: '$patch-delete', mustRefuse: ['a strategic merge patch that deletes the whole object'] },
    { value: { $patch: 'replace' }, label: '$patch-replace', mustRefuse: ['a strategic merge patch that replaces the whole object with nothing'] },
    { value: { metadata: { $patch: 'delete' } }, label: 'metadata-$patch-delete', mustRefuse: ['a strategic merge patch that deletes metadata'] },
    {
      value: { metadata: { $patch: 'replace' } },
      label: 'metadata-$patch-replace',
      mustRefuse: ['a strategic merge patch that replaces metadata with nothing'],
    },
    { value: { metadata: null }, label: 'metadata-null', mustRefuse: ['a strategic merge patch that deletes metadata'] },
    { value: { $patch: 'merge' }, label: '$patch-merge', mustRefuse: [] },
    { value: { $patch: 'bogus' }, label: '$patch-bogus', mustRefuse: [] },
    { value: { spec: { $patch: 'delete' } }, label: 'spec-$patch-delete', mustRefuse: [] },
    { value: { metadata: { $deleteFromPrimitiveList: { finalizers: [FIXTURE_FINALIZER] } } }, label: '$deleteFromPrimitiveList', mustRefuse: [] },
    { value: { metadata: { '$setElementOrder/finalizers': ['x/y', FIXTURE_FINALIZER] } }, label: '$setElementOrder', mustRefuse: [] },
    { value: { spec: { $retainKeys: ['replicas'], replicas: 1 } }, label: '$retainKeys', mustRefuse: [] },
    { value: { spec: { template: { spec: { containers: [{ name: 'app', $patch: 'delete' }] } } } }, label: 'list-item-delete', mustRefuse: [] },
    {
      value: { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'zz' }], containers: [{ name: 'app', image: 'i:2' }] } } } },
      label: 'setElementOrder-containers',
      mustRefuse: [],
    },
    { value: { spec: { containers: [{ $patch: 'replace' }] } }, label: 'list-replace', mustRefuse: [] },
  );
  return fc.oneof({ weight: 3, arbitrary: mergePatchArbitrary(resource) }, { weight: 2, arbitrary: directives });
}

/** Apply bodies: whole objects (the applier's intent), sometimes with a foreign identity or managedFields. */
export function applyArbitrary(resource: ResourceModel, name: string): fc.Arbitrary<GeneratedDocument> {
  return fc.oneof(
    { weight: 6, arbitrary: objectArbitrary(resource, name) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(objectArbitrary(resource, name), identityChangeArbitrary(resource))
        .filter(([doc]) => isRecord(doc.value))
        .map(([doc, change]) => ({
          value: setPath(doc.value as Record<string, unknown>, change.field, change.value),
          label: `identity-${change.field}`,
          mustRefuse: [`an apply body whose ${change.field} is ${JSON.stringify(change.value)}`],
        })),
    },
    {
      weight: 1,
      arbitrary: objectArbitrary(resource, name)
        .filter((doc) => isRecord(doc.value))
        .map((doc) => ({
          value: setPath(doc.value as Record<string, unknown>, 'metadata.managedFields', [{ manager: 'x', operation: 'Apply' }]),
          label: 'managedFields',
          mustRefuse: ['an apply body that carries managedFields (spec 1: it must not)'],
        })),
    },
  );
}
