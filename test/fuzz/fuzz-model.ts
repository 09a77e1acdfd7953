import type { FuzzHttp } from './fuzz-http';

/** A JSON Schema node of the server's OpenAPI v3 documents. */
export type JsonSchema = Record<string, unknown>;

/** One served resource type, as discovery and the OpenAPI documents describe it. */
export interface ResourceModel {
  group: string;
  version: string;
  /** `v1` or `<group>/<version>`. */
  apiVersion: string;
  /** `/api/v1` or `/apis/<group>/<version>`. */
  basePath: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  /** Subresource names served for it (`status`, `scale`, `finalize`). */
  subresources: string[];
  /** The kind's schema from the OpenAPI document of its group version, when there is one. */
  schema?: JsonSchema;
  /** `components.schemas` of that document, which `$ref`s point into. */
  components: Record<string, JsonSchema>;
  /** A custom resource (JSON only, no protobuf). */
  custom: boolean;
}

export interface FuzzModel {
  resources: ResourceModel[];
}

interface ApiResource {
  name: string;
  namespaced: boolean;
  kind: string;
  verbs: string[];
}

async function getJson<T>(http: FuzzHttp, path: string): Promise<T> {
  const answer = await http.send({ method: 'GET', target: path, headers: [['Accept', 'application/json']] }, 30_000);
  if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${answer.error ?? answer.body.toString('utf8').slice(0, 500)}`);
  return JSON.parse(answer.body.toString('utf8')) as T;
}

/**
 * Every resource the server serves, read the way a client reads it: `/api`, `/apis`, each group
 * version's resource list, and the kinds' schemas from `/openapi/v3`. The generators are built from
 * this, so a kind added to the scheme is fuzzed without a change here.
 */
export async function discoverModel(http: FuzzHttp, customGroups: readonly string[]): Promise<FuzzModel> {
  const groupVersions: Array<{ group: string; version: string; basePath: string }> = [];
  const core = await getJson<{ versions: string[] }>(http, '/api');
  for (const version of core.versions) groupVersions.push({ group: '', version, basePath: `/api/${version}` });
  const groups = await getJson<{ groups: Array<{ name: string; versions: Array<{ version: string }> }> }>(http, '/apis');
  for (const group of groups.groups) {
    for (const { version } of group.versions) groupVersions.push({ group: group.name, version, basePath: `/apis/${group.name}/${version}` });
  }
  const openapi = await getJson<{ paths: Record<string, { serverRelativeURL: string }> }>(http, '/openapi/v3');

  const resources: ResourceModel[] = [];
  for (const gv of groupVersions) {
    const list = await getJson<{ resources: ApiResource[] }>(http, gv.basePath);
    const docRef = openapi.paths[gv.basePath.slice(1)];
    const doc = docRef ? await getJson<{ components?: { schemas?: Record<string, JsonSchema> } }>(http, docRef.serverRelativeURL) : {};
    const components = doc.components?.schemas ?? {};
    const apiVersion = gv.group === '' ? gv.version : `${gv.group}/${gv.version}`;
    for (const entry of list.resources.filter((r) => !r.name.includes('/'))) {
      const subresources = list.resources.filter((r) => r.name.startsWith(`${entry.name}/`)).map((r) => r.name.slice(entry.name.length + 1));
      resources.push({
        group: gv.group,
        version: gv.version,
        apiVersion,
        basePath: gv.basePath,
        resource: entry.name,
        kind: entry.kind,
        namespaced: entry.namespaced,
        verbs: entry.verbs,
        subresources,
        schema: schemaOfKind(components, gv.group, gv.version, entry.kind),
        components,
        custom: customGroups.includes(gv.group),
      });
    }
  }
  return { resources };
}

function schemaOfKind(components: Record<string, JsonSchema>, group: string, version: string, kind: string): JsonSchema | undefined {
  for (const schema of Object.values(components)) {
    const gvks = (schema['x-svc-group-version-kind'] ?? schema['x-kubernetes-group-version-kind']) as Array<Record<string, string>> | undefined;
    if (gvks?.some((gvk) => gvk.group === group && gvk.version === version && gvk.kind === kind)) return schema;
  }
  return undefined;
}

export function collectionPath(resource: ResourceModel, namespace: string): string {
  return resource.namespaced ? `${resource.basePath}/namespaces/${namespace}/${resource.resource}` : `${resource.basePath}/${resource.resource}`;
}

export function objectPath(resource: ResourceModel, namespace: string, name: string): string {
  return `${collectionPath(resource, namespace)}/${name}`;
}
