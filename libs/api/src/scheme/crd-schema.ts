import { ObjectMetaSchema } from '../meta/object-meta';
import type { JsonSchema } from '../schema/json-schema';
import { isRecord } from '@svc/machinery';

const KUBERNETES_MARKER_PREFIX = 'x-kubernetes-';
const SVC_MARKER_PREFIX = 'x-svc-';

/**
 * A copy of a CRD schema whose Kubernetes markers (`x-kubernetes-preserve-unknown-fields`,
 * `x-kubernetes-list-type`, ...) are spelled as the specification's (`x-svc-...`), so that schemas
 * from real manifests mean what they say. A node that carries both spellings keeps the `x-svc-` one.
 * Values (`default`, `enum`, `example`) and property names are left as they are.
 */
export function withSvcMarkers<T>(schema: T): T {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!isRecord(node)) return node;
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(node)) {
      const name = key.startsWith(KUBERNETES_MARKER_PREFIX) ? `${SVC_MARKER_PREFIX}${key.slice(KUBERNETES_MARKER_PREFIX.length)}` : key;
      if (name !== key && Object.prototype.hasOwnProperty.call(node, name)) continue;
      if (key === 'default' || key === 'enum' || key === 'example' || key === 'const') out[name] = child;
      else if (key === 'properties' || key === 'patternProperties' || key === 'definitions' || key === '$defs') {
        out[name] = isRecord(child) ? Object.fromEntries(Object.entries(child).map(([k, v]) => [k, walk(v)])) : child;
      } else out[name] = walk(child);
    }
    return out;
  };
  return walk(schema) as T;
}

/** The markers a CustomResourceDefinition's schema may carry (apiextensions.k8s.io/v1 JSONSchemaProps). */
const CRD_MARKERS = new Set(['preserve-unknown-fields', 'embedded-resource', 'int-or-string', 'list-type', 'list-map-keys', 'map-type', 'validations']);

/**
 * The reverse of {@link withSvcMarkers}, for a schema a CRD will carry to any Kubernetes cluster:
 * the specification's markers spelled as Kubernetes' (`x-svc-list-type` -> `x-kubernetes-list-type`),
 * and those a CRD has no field for (`x-svc-patch-strategy`, `x-svc-patch-merge-key`: custom resources
 * merge by list type) left out, since a Kubernetes server refuses unknown fields of a CRD.
 */
export function withKubernetesMarkers<T>(schema: T): T {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!isRecord(node)) return node;
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(node)) {
      let name = key;
      if (key.startsWith(SVC_MARKER_PREFIX)) {
        const marker = key.slice(SVC_MARKER_PREFIX.length);
        if (!CRD_MARKERS.has(marker)) continue;
        name = `${KUBERNETES_MARKER_PREFIX}${marker}`;
      }
      if (key === 'default' || key === 'enum' || key === 'example' || key === 'const') out[name] = child;
      else if (key === 'properties' || key === 'patternProperties' || key === 'definitions' || key === '$defs') {
        out[name] = isRecord(child) ? Object.fromEntries(Object.entries(child).map(([k, v]) => [k, walk(v)])) : child;
      } else out[name] = walk(child);
    }
    return out;
  };
  return walk(schema) as T;
}

/**
 * Rewrites the OpenAPI 3.0 spellings ajv (JSON Schema draft 7) reads differently: boolean
 * `exclusiveMinimum`/`exclusiveMaximum`, and `nullable` on a node without `type` (where it
 * adds nothing, as such a node already accepts null).
 */
function toDraft7(node: unknown): void {
  if (Array.isArray(node)) {
    node.forEach(toDraft7);
    return;
  }
  if (!isRecord(node)) return;
  for (const [bound, limit] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof node[bound] === 'boolean') {
      if (node[bound] === true && typeof node[limit] === 'number') {
        node[bound] = node[limit];
        delete node[limit];
      } else {
        delete node[bound];
      }
    }
  }
  if (node.nullable !== undefined && node.type === undefined) delete node.nullable;
  // An `$id` would be registered in the shared compiler and collide when the CRD is compiled again.
  delete node.$id;
  delete node.$schema;
  // Kubernetes rejects duplicates in a CRD's set and map lists (not in built-in kinds, whose Go code decides).
  if (node['x-svc-list-type'] === 'set') node.uniqueItems = true;
  if (node['x-svc-list-type'] === 'map' && Array.isArray(node['x-svc-list-map-keys'])) node['x-svc-unique-map-keys'] = node['x-svc-list-map-keys'];
  for (const [key, child] of Object.entries(node)) {
    if (key === 'default' || key === 'enum' || key === 'example' || key === 'const') continue;
    if (key === 'properties' || key === 'patternProperties' || key === 'definitions' || key === '$defs') {
      if (isRecord(child)) Object.values(child).forEach(toDraft7);
    } else {
      toDraft7(child);
    }
  }
}

function metadataSchema(user: JsonSchema | undefined): JsonSchema {
  const base: JsonSchema = ObjectMetaSchema;
  const props = user?.properties;
  if (!props || (!props.name && !props.generateName)) return base;
  // Kubernetes lets a CRD constrain only name and generateName; both rules apply.
  const merged: Record<string, JsonSchema> = { ...(base.properties ?? {}) };
  for (const key of ['name', 'generateName'] as const) {
    if (props[key] && merged[key]) merged[key] = { allOf: [merged[key], props[key]] };
  }
  return { ...base, properties: merged };
}

/**
 * The whole-object schema of a custom resource: the CRD's `openAPIV3Schema` (copied, converted
 * for ajv) with `apiVersion`, `kind` and `metadata` declared the way Kubernetes implies them.
 */
export function customResourceSchema(openAPIV3Schema: JsonSchema | undefined, preserveUnknownFields = false): JsonSchema {
  const root: JsonSchema = openAPIV3Schema
    ? withSvcMarkers(JSON.parse(JSON.stringify(openAPIV3Schema)) as JsonSchema)
    : { type: 'object', 'x-svc-preserve-unknown-fields': true };
  toDraft7(root);
  root.type ??= 'object';
  if (preserveUnknownFields) root['x-svc-preserve-unknown-fields'] = true;
  const { metadata: userMetadata, ...rest } = root.properties ?? {};
  root.properties = {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: metadataSchema(userMetadata),
    ...rest,
  };
  return root;
}
