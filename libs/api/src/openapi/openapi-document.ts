import { ListMetaSchema } from '../meta/list-meta';
import { StatusSchema } from '../meta/status';
import { DeleteOptionsSchema } from '../meta/delete-options';
import { ScaleSchema } from '../meta/scale';
import type { JsonSchema } from '../schema/json-schema';
import type { KindDefinition } from '../scheme/kind-definition';
import type { Scheme } from '../scheme/scheme';

/** OpenAPI v3 documents, one per group version, built from the same schemas the engine uses. */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, JsonSchema> };
}

export interface OpenApiIndex {
  paths: Record<string, { serverRelativeURL: string }>;
}

function plain<T>(value: T): T {
  // TypeBox keeps symbol-keyed metadata on its schemas; the document carries JSON only.
  return JSON.parse(JSON.stringify(value)) as T;
}

/** `io.svc.api.apps.v1.Deployment` for product groups, reverse DNS (`com.example.v1.Widget`) for others. */
export function openApiSchemaName(group: string, version: string, kind: string): string {
  let prefix: string;
  if (!group) prefix = 'io.svc.api.core';
  else if (!group.includes('.')) prefix = `io.svc.api.${group}`;
  else if (group.endsWith('.svc.io')) prefix = `io.svc.api.${group.slice(0, -'.svc.io'.length)}`;
  else prefix = group.split('.').reverse().join('.');
  return `${prefix}.${version}.${kind}`;
}

export function groupVersionPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

const META_PREFIX = 'io.svc.apimachinery.pkg.apis.meta.v1';
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ content: { 'application/json': { schema } } });

function operations(def: KindDefinition, scope: 'collection' | 'item' | 'all' | 'status' | 'scale'): Record<string, unknown> {
  const gvk = { group: def.group, version: def.version, kind: def.kind };
  const name = openApiSchemaName(def.group, def.version, def.kind);
  const list = openApiSchemaName(def.group, def.version, def.listKind);
  const status = ref(`${META_PREFIX}.Status`);
  const ns = def.namespaced && scope !== 'all' ? 'Namespaced' : '';
  const op = (verb: string, action: string, response: object, body?: object) => ({
    operationId: `${verb}${ns}${def.kind}${scope === 'status' ? 'Status' : scope === 'scale' ? 'Scale' : ''}`,
    'x-svc-action': action,
    'x-svc-group-version-kind': gvk,
    ...(body ? { requestBody: json(body) } : {}),
    responses: { '200': { description: 'OK', ...json(response) }, default: { description: 'Error', ...json(status) } },
  });
  const obj = ref(name);
  switch (scope) {
    case 'all':
      return { get: { ...op('list', 'list', ref(list)), operationId: `list${def.kind}ForAllNamespaces` } };
    case 'collection':
      return {
        get: op('list', 'list', ref(list)),
        post: op('create', 'post', obj, obj),
        delete: op('deleteCollection', 'deletecollection', status, ref(`${META_PREFIX}.DeleteOptions`)),
      };
    case 'item':
    case 'status':
      return {
        get: op('read', 'get', obj),
        put: op('replace', 'put', obj, obj),
        patch: op('patch', 'patch', obj, { type: 'object' }),
        ...(scope === 'item' ? { delete: op('delete', 'delete', status, ref(`${META_PREFIX}.DeleteOptions`)) } : {}),
      };
    case 'scale': {
      const scale = ref('io.svc.api.autoscaling.v1.Scale');
      return { get: op('read', 'get', scale), put: op('replace', 'put', scale, scale), patch: op('patch', 'patch', scale, { type: 'object' }) };
    }
  }
}

/** The document served at `/openapi/v3/api/v1` or `/openapi/v3/apis/<group>/<version>`. */
export function openApiV3Document(scheme: Scheme, group: string, version: string): OpenApiDocument {
  const defs = scheme.resourcesIn(group, version);
  const schemas: Record<string, JsonSchema> = {
    [`${META_PREFIX}.ListMeta`]: plain(ListMetaSchema) as JsonSchema,
    [`${META_PREFIX}.Status`]: plain(StatusSchema) as JsonSchema,
    [`${META_PREFIX}.DeleteOptions`]: plain(DeleteOptionsSchema) as JsonSchema,
  };
  const paths: OpenApiDocument['paths'] = {};
  const base = `/${groupVersionPath(group, version)}`;
  for (const def of defs) {
    const gvk = [{ group: def.group, version: def.version, kind: def.kind }];
    schemas[openApiSchemaName(group, version, def.kind)] = { ...plain(def.schema), 'x-svc-group-version-kind': gvk };
    schemas[openApiSchemaName(group, version, def.listKind)] = {
      type: 'object',
      required: ['items'],
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: ref(`${META_PREFIX}.ListMeta`) as JsonSchema,
        items: { type: 'array', items: ref(openApiSchemaName(group, version, def.kind)) as JsonSchema },
      },
      'x-svc-group-version-kind': [{ group: def.group, version: def.version, kind: def.listKind }],
    };
    const collection = def.namespaced ? `${base}/namespaces/{namespace}/${def.resource}` : `${base}/${def.resource}`;
    paths[collection] = operations(def, 'collection');
    paths[`${collection}/{name}`] = operations(def, 'item');
    if (def.namespaced) paths[`${base}/${def.resource}`] = operations(def, 'all');
    if (def.subresources.status) paths[`${collection}/{name}/status`] = operations(def, 'status');
    if (def.subresources.scale) {
      paths[`${collection}/{name}/scale`] = operations(def, 'scale');
      schemas['io.svc.api.autoscaling.v1.Scale'] ??= plain(ScaleSchema) as JsonSchema;
    }
  }
  return {
    openapi: '3.0.0',
    info: { title: 'svc', version: group ? `${group}/${version}` : version },
    paths,
    components: { schemas },
  };
}

/** The index served at `/openapi/v3`: one entry per served group version. */
export function openApiV3Index(scheme: Scheme): OpenApiIndex {
  const paths: OpenApiIndex['paths'] = {};
  for (const g of scheme.groups()) {
    for (const v of g.versions) {
      const p = groupVersionPath(g.name, v.version);
      paths[p] = { serverRelativeURL: `/openapi/v3/${p}` };
    }
  }
  return { paths };
}
