import { createHash } from 'node:crypto';
import { DeleteOptionsSchema } from '../meta/delete-options';
import { ListMetaSchema } from '../meta/list-meta';
import { ObjectMetaSchema } from '../meta/object-meta';
import { ScaleSchema } from '../meta/scale';
import { StatusSchema } from '../meta/status';
import { TableSchema } from '../meta/table';
import { WatchEventSchema } from '../meta/watch-event';
import type { JsonSchema } from '../schema/json-schema';
import type { KindDefinition } from '../scheme/kind-definition';
import type { Scheme } from '../scheme/scheme';
import { groupVersionPath, META_SCHEMA_PREFIX, openApiSchemaName, SCALE_SCHEMA_NAME } from './openapi-names';
import type { NonStoredResource } from '../scheme/definitions/review-definitions';
import { kindPaths, nonStoredPaths, type OpenApiPathItem } from './openapi-paths';
import { OpenApiSchemaConverter } from './openapi-schema';

export { groupVersionPath, META_SCHEMA_PREFIX, openApiSchemaName, SCALE_SCHEMA_NAME } from './openapi-names';
export { kindPaths, nonStoredPaths, operationGroupVersion, PATCH_CONTENT_TYPES, QUERY_PARAMETERS } from './openapi-paths';
export type { OpenApiOperation, OpenApiParameter, OpenApiPathItem } from './openapi-paths';
export { MIRRORED_MARKERS, OpenApiSchemaConverter, toOpenApiSchema } from './openapi-schema';
export { namedStructs } from './named-structs';
export type { NamedStruct } from './named-structs';

/** OpenAPI v3 documents, one per group version, built from the same schemas the engine uses. */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, OpenApiPathItem>;
  components: { schemas: Record<string, JsonSchema> };
}

export interface OpenApiIndex {
  paths: Record<string, { serverRelativeURL: string }>;
}

export interface OpenApiDocumentOptions {
  /** `info.title`; `svc` by default. */
  title?: string;
  /** `info.version`, the server's version; the group version by default. */
  version?: string;
  /** Resources answered without storage (reviews, component statuses); those of the group version are documented. */
  nonStored?: readonly NonStoredResource[];
}

export interface OpenApiIndexOptions {
  /** Group versions left out of the index (disabled by `--runtime-config`, say). */
  include?: (group: string, version: string) => boolean;
  /** The content hash of each group version's document, keyed like the index (`apis/apps/v1`). */
  hashes?: Readonly<Record<string, string>>;
  /** The group versions to index, when not those of the scheme (groups of resources the scheme does not hold). */
  groups?: ReadonlyArray<{ name: string; versions: ReadonlyArray<{ version: string }> }>;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const metaRef = (name: string) => ref(`${META_SCHEMA_PREFIX}.${name}`);

const API_VERSION_DESCRIPTION =
  'The group and version of the schema this object is written in, such as `apps/v1`; the server converts between the versions it serves.';
const KIND_DESCRIPTION = 'The kind of this object, in CamelCase, such as `Deployment`; the server may infer it from the URL. It cannot change.';
const OBJECT_METADATA_DESCRIPTION = "The object's name, namespace, labels, annotations, owners and versions.";
const LIST_METADATA_DESCRIPTION = 'The version the list was read at, and the token for its next page.';

function withDescription(schema: JsonSchema | undefined, description: string): JsonSchema | undefined {
  if (!schema || schema.description) return schema;
  // A bare reference takes no siblings in OpenAPI 3.0: wrap it, as Kubernetes does.
  if (typeof schema.$ref === 'string' && Object.keys(schema).length === 1) return { allOf: [schema], description };
  return { ...schema, description };
}

/** `metadata` as a reference to the shared ObjectMeta or ListMeta, as Kubernetes documents it. */
function metadataRef(name: 'ObjectMeta' | 'ListMeta', description: string): JsonSchema {
  return { allOf: [metaRef(name)], default: {}, description };
}

function gvkExtensions(group: string, version: string, kind: string): Record<string, unknown> {
  const gvk = [{ group, version, kind }];
  return { 'x-kubernetes-group-version-kind': gvk, 'x-svc-group-version-kind': gvk.map((g) => ({ ...g })) };
}

function objectSchema(
  converter: OpenApiSchemaConverter,
  schema: JsonSchema,
  kind: string,
  group: string,
  version: string,
  objectMeta: boolean,
  customResource = false,
): JsonSchema {
  const out = converter.convert(schema, { customResource });
  const props = { ...(out.properties ?? {}) };
  if (props.apiVersion) props.apiVersion = withDescription(props.apiVersion, API_VERSION_DESCRIPTION)!;
  if (props.kind) props.kind = withDescription(props.kind, KIND_DESCRIPTION)!;
  if (props.metadata && objectMeta) {
    // A kind that says something of its own metadata (a review is never stored) keeps its words.
    const own = typeof props.metadata.description === 'string' ? props.metadata.description : OBJECT_METADATA_DESCRIPTION;
    props.metadata = metadataRef('ObjectMeta', own);
  }
  if (props.spec) props.spec = withDescription(props.spec, `The desired state of the ${kind}, as its owner writes it.`)!;
  if (props.status)
    props.status = withDescription(
      props.status,
      `The state of the ${kind} as the system last observed it. Written by the server and controllers; read-only to others.`,
    )!;
  return {
    ...out,
    description: out.description ?? `${kind} of ${group ? `${group}/${version}` : version}.`,
    properties: props,
    ...gvkExtensions(group, version, kind),
  };
}

function kindSchema(converter: OpenApiSchemaConverter, def: KindDefinition): JsonSchema {
  return objectSchema(converter, def.schema, def.kind, def.group, def.version, true, def.source.type === 'crd');
}

function listSchema(def: Pick<KindDefinition, 'group' | 'version' | 'kind' | 'listKind' | 'resource'>): JsonSchema {
  return {
    description: `${def.kind} objects, as a list request returns them.`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { type: 'string', description: API_VERSION_DESCRIPTION },
      items: { type: 'array', description: `The ${def.resource} listed.`, items: ref(openApiSchemaName(def.group, def.version, def.kind)) },
      kind: { type: 'string', description: KIND_DESCRIPTION },
      metadata: metadataRef('ListMeta', LIST_METADATA_DESCRIPTION),
    },
    ...gvkExtensions(def.group, def.version, def.listKind),
  };
}

/** The shared meta types every group-version document carries. */
function metaSchemas(converter: OpenApiSchemaConverter): Record<string, JsonSchema> {
  const toOpenApiSchema = (schema: JsonSchema) => converter.convert(schema);
  const withListMeta = (schema: JsonSchema): JsonSchema => {
    const out = toOpenApiSchema(schema);
    if (out.properties?.metadata) out.properties = { ...out.properties, metadata: metadataRef('ListMeta', LIST_METADATA_DESCRIPTION) };
    return out;
  };
  return {
    [`${META_SCHEMA_PREFIX}.ObjectMeta`]: {
      ...toOpenApiSchema(ObjectMetaSchema),
      description: 'Metadata every stored object has: its name, namespace, labels, annotations, owners and versions.',
    },
    [`${META_SCHEMA_PREFIX}.ListMeta`]: {
      ...toOpenApiSchema(ListMetaSchema),
      description: 'Metadata of a list: the version it was read at and the token for its next page.',
    },
    [`${META_SCHEMA_PREFIX}.Status`]: {
      ...withListMeta(StatusSchema),
      description: 'The answer of a call that returns no object: an error, or the outcome of a delete.',
      ...gvkExtensions('', 'v1', 'Status'),
    },
    [`${META_SCHEMA_PREFIX}.DeleteOptions`]: {
      ...toOpenApiSchema(DeleteOptionsSchema),
      description: 'How a delete is to be done: its grace period, preconditions and what becomes of dependents.',
    },
    [`${META_SCHEMA_PREFIX}.WatchEvent`]: {
      ...toOpenApiSchema(WatchEventSchema),
      description: 'One change seen by a watch: its type and the object as it now is.',
    },
    [`${META_SCHEMA_PREFIX}.Table`]: {
      ...withListMeta(TableSchema),
      description: 'Objects shown as rows of named columns, as kubectl get prints them.',
      ...gvkExtensions('meta.svc.io', 'v1', 'Table'),
    },
    [`${META_SCHEMA_PREFIX}.Patch`]: {
      type: 'object',
      description: 'The body of a PATCH: a JSON patch, a merge patch, a strategic merge patch or an apply configuration.',
    },
    [SCALE_SCHEMA_NAME]: {
      ...objectSchema(converter, ScaleSchema, 'Scale', 'autoscaling', 'v1', true),
      description: 'The desired and observed replica counts of a scalable resource, read and written through its scale subresource.',
    },
  };
}

/** The document served at `/openapi/v3/api/v1` or `/openapi/v3/apis/<group>/<version>`. */
export function openApiV3Document(scheme: Scheme, group: string, version: string, options: OpenApiDocumentOptions = {}): OpenApiDocument {
  const converter = new OpenApiSchemaConverter();
  const schemas = metaSchemas(converter);
  const paths: OpenApiDocument['paths'] = {};
  for (const def of scheme.resourcesIn(group, version)) {
    schemas[openApiSchemaName(group, version, def.kind)] = kindSchema(converter, def);
    schemas[openApiSchemaName(group, version, def.listKind)] = listSchema(def);
    Object.assign(paths, kindPaths(def));
    // The bodies of subresources that take another kind (a pod's Binding) are components too.
    for (const sub of Object.values(def.strategy.subresources ?? {})) {
      const create = sub.create;
      if (create === undefined) continue;
      schemas[openApiSchemaName(create.kind.group, create.kind.version, create.kind.kind)] ??= objectSchema(
        converter,
        create.schema,
        create.kind.kind,
        create.kind.group,
        create.kind.version,
        true,
      );
    }
  }
  for (const res of options.nonStored ?? []) {
    if (res.group !== group || res.version !== version) continue;
    schemas[openApiSchemaName(group, version, res.kind)] = objectSchema(converter, res.schema, res.kind, group, version, true);
    if (res.listKind !== undefined) {
      schemas[openApiSchemaName(group, version, res.listKind)] = listSchema({ group, version, kind: res.kind, listKind: res.listKind, resource: res.resource });
    }
    Object.assign(paths, nonStoredPaths(res));
  }
  // The structs the kinds are made of; a meta type already written above keeps its own entry.
  for (const [name, schema] of Object.entries(converter.components)) schemas[name] ??= schema;
  return {
    openapi: '3.0.0',
    info: { title: options.title ?? 'svc', version: options.version ?? (group ? `${group}/${version}` : version) },
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    components: { schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) },
  };
}

/** A content hash of a document, as the index's `?hash=` carries it (SHA-512, upper-case hex). */
export function openApiV3Hash(document: OpenApiDocument | string): string {
  const text = typeof document === 'string' ? document : JSON.stringify(document);
  return createHash('sha512').update(text).digest('hex').toUpperCase();
}

/** The index served at `/openapi/v3`: one entry per served group version. */
export function openApiV3Index(scheme: Scheme, options: OpenApiIndexOptions = {}): OpenApiIndex {
  const paths: OpenApiIndex['paths'] = {};
  for (const g of options.groups ?? scheme.groups()) {
    for (const v of g.versions) {
      if (options.include && !options.include(g.name, v.version)) continue;
      const p = groupVersionPath(g.name, v.version);
      const hash = options.hashes?.[p];
      paths[p] = { serverRelativeURL: `/openapi/v3/${p}${hash ? `?hash=${hash}` : ''}` };
    }
  }
  return { paths };
}

export { openApiV2Document, openApiV2Etag } from './openapi-v2';
export type { SwaggerDocument } from './openapi-v2';
export { encodeOpenApiV2Protobuf } from './openapi-v2-protobuf';
