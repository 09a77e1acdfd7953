import type { NonStoredResource } from '../scheme/definitions/review-definitions';
import { apiVersionOf, type KindDefinition } from '../scheme/kind-definition';
import { META_SCHEMA_PREFIX, openApiSchemaName, SCALE_SCHEMA_NAME } from './openapi-names';

/**
 * The `paths` of a group-version document, shaped as Kubernetes shapes them: path-level `name`,
 * `namespace` and `pretty` parameters, one operation per verb with `x-kubernetes-action`,
 * `x-kubernetes-group-version-kind` and its query parameters. kubectl reads three things here:
 * the GVK of each operation (explain), whether a kind's PATCH accepts
 * `application/strategic-merge-patch+json` (client-side apply), and whether that PATCH lists the
 * `fieldValidation` parameter (server-side field validation for `--validate=strict`).
 */

export interface OpenApiParameter {
  name: string;
  in: 'query' | 'path';
  description: string;
  required?: boolean;
  schema: { type: string; uniqueItems?: boolean };
}

export type OpenApiOperation = Record<string, unknown>;
export type OpenApiPathItem = Record<string, unknown>;

const query = (name: string, type: string, description: string): OpenApiParameter => ({
  name,
  in: 'query',
  description,
  schema: { type, uniqueItems: true },
});

/** Query parameters by name, with Kubernetes' wording. */
export const QUERY_PARAMETERS = {
  allowWatchBookmarks: query(
    'allowWatchBookmarks',
    'boolean',
    'allowWatchBookmarks requests watch events with type "BOOKMARK". Servers that do not implement bookmarks may ignore this flag and bookmarks are sent at the server\'s discretion.',
  ),
  continue: query(
    'continue',
    'string',
    'The continue option should be set when retrieving more results from the server. Its value is the token returned by the previous page; an expired token yields 410 ResourceExpired.',
  ),
  dryRun: query(
    'dryRun',
    'string',
    'When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed',
  ),
  fieldManager: query(
    'fieldManager',
    'string',
    'fieldManager is a name associated with the actor or entity that is making these changes. It is required for apply requests and optional otherwise.',
  ),
  fieldSelector: query('fieldSelector', 'string', 'A selector to restrict the list of returned objects by their fields. Defaults to everything.'),
  fieldValidation: query(
    'fieldValidation',
    'string',
    'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields. Valid values are: - Ignore: drop them silently - Warn: send a warning via the Warning response header for each one (the default) - Strict: fail the request with a BadRequest error listing them.',
  ),
  force: query(
    'force',
    'boolean',
    'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other people. Force flag must be unset for non-apply patch requests.',
  ),
  gracePeriodSeconds: query(
    'gracePeriodSeconds',
    'integer',
    'The duration in seconds before the object should be deleted. Value must be non-negative integer.',
  ),
  labelSelector: query('labelSelector', 'string', 'A selector to restrict the list of returned objects by their labels. Defaults to everything.'),
  limit: query(
    'limit',
    'integer',
    'limit is a maximum number of responses to return for a list call. If more items exist, the server will set the `continue` field on the list metadata.',
  ),
  orphanDependents: query(
    'orphanDependents',
    'boolean',
    'Deprecated: please use the PropagationPolicy, this field will be deprecated. Should the dependent objects be orphaned.',
  ),
  pretty: query('pretty', 'string', "If 'true', then the output is pretty printed."),
  propagationPolicy: query(
    'propagationPolicy',
    'string',
    "Whether and how garbage collection will be performed. Acceptable values are: 'Orphan', 'Background', 'Foreground'.",
  ),
  resourceVersion: query(
    'resourceVersion',
    'string',
    'resourceVersion sets a constraint on what resource versions a request may be served from. Defaults to unset.',
  ),
  resourceVersionMatch: query(
    'resourceVersionMatch',
    'string',
    'resourceVersionMatch determines how resourceVersion is applied to list calls: Exact or NotOlderThan. Invalid without resourceVersion.',
  ),
  sendInitialEvents: query(
    'sendInitialEvents',
    'boolean',
    'sendInitialEvents=true may be set together with watch=true. The stream then begins with synthetic events for the current state, followed by a bookmark.',
  ),
  timeoutSeconds: query(
    'timeoutSeconds',
    'integer',
    'Timeout for the list/watch call. This limits the duration of the call, regardless of any activity or inactivity.',
  ),
  watch: query('watch', 'boolean', 'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.'),
} as const;

const q = QUERY_PARAMETERS;
const LIST_PARAMETERS = [
  q.allowWatchBookmarks,
  q.continue,
  q.fieldSelector,
  q.labelSelector,
  q.limit,
  q.resourceVersion,
  q.resourceVersionMatch,
  q.sendInitialEvents,
  q.timeoutSeconds,
  q.watch,
];
const WRITE_PARAMETERS = [q.dryRun, q.fieldManager, q.fieldValidation];
const PATCH_PARAMETERS = [...WRITE_PARAMETERS, q.force];
const DELETE_PARAMETERS = [q.dryRun, q.gracePeriodSeconds, q.orphanDependents, q.propagationPolicy];
const DELETE_COLLECTION_PARAMETERS = [
  q.continue,
  q.dryRun,
  q.fieldSelector,
  q.gracePeriodSeconds,
  q.labelSelector,
  q.limit,
  q.orphanDependents,
  q.propagationPolicy,
  q.resourceVersion,
  q.resourceVersionMatch,
  q.sendInitialEvents,
  q.timeoutSeconds,
];

export const PATCH_CONTENT_TYPES = [
  'application/apply-patch+yaml',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
] as const;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function pathParameter(name: string, description: string): OpenApiParameter {
  return { name, in: 'path', description, required: true, schema: { type: 'string', uniqueItems: true } };
}

/**
 * The operation-id infix Kubernetes uses: `CoreV1` for the core group, the first label for
 * product groups (`AppsV1`, `CoordinationV1`), the whole group camel-cased for others
 * (`StableExampleComV1`, as for custom resources).
 */
export function operationGroupVersion(group: string, version: string): string {
  const cap = (s: string) => (s ? s[0].toUpperCase() + s.slice(1) : s);
  let groupPart: string;
  if (!group) groupPart = 'Core';
  else if (!group.includes('.') || group.endsWith('.svc.io')) groupPart = cap(group.split('.')[0]);
  else groupPart = group.split(/[.-]/).map(cap).join('');
  return `${groupPart.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())}${cap(version)}`;
}

/** The tag Kubernetes groups operations under: `core_v1`, `apps_v1`, `stableExampleCom_v1`. */
function operationTag(group: string, version: string): string {
  const gv = operationGroupVersion(group, version);
  const groupPart = gv.slice(0, gv.length - version.length);
  return `${groupPart[0].toLowerCase()}${groupPart.slice(1)}_${version}`;
}

/** What an operation needs to know of the kind it serves. */
type OperationKind = Pick<KindDefinition, 'group' | 'version' | 'kind' | 'source'>;

function mediaTypes(def: OperationKind, watch = false): string[] {
  // Kinds from definitions have no protobuf encoding, as the specification says of extension types.
  const protobuf = def.source.type === 'builtin';
  const types = ['application/json', 'application/yaml', ...(protobuf ? ['application/vnd.svc.protobuf'] : [])];
  if (watch) types.push('application/json;stream=watch', ...(protobuf ? ['application/vnd.svc.protobuf;stream=watch'] : []));
  return types;
}

function content(types: readonly string[], schema: object): { content: Record<string, { schema: object }> } {
  return { content: Object.fromEntries(types.map((t) => [t, { schema }])) };
}

interface OperationSpec {
  verb: 'list' | 'create' | 'deletecollection' | 'read' | 'replace' | 'patch' | 'delete';
  def: OperationKind;
  /** Operation-id suffix: `Status`, `Scale`, `Finalize`, `ForAllNamespaces`. */
  suffix?: string;
  namespaced: boolean;
  /** The kind the operation carries in its GVK (Scale for the scale subresource). */
  gvk: { group: string; version: string; kind: string };
  /** Schema of the object read and written. */
  schemaName: string;
  listSchemaName?: string;
  description: string;
}

const ACTION: Record<OperationSpec['verb'], string> = {
  list: 'list',
  create: 'post',
  deletecollection: 'deletecollection',
  read: 'get',
  replace: 'put',
  patch: 'patch',
  delete: 'delete',
};

const OPERATION_PREFIX: Record<OperationSpec['verb'], string> = {
  list: 'list',
  create: 'create',
  deletecollection: 'deleteCollection',
  read: 'read',
  replace: 'replace',
  patch: 'patch',
  delete: 'delete',
};

function operation(spec: OperationSpec): OpenApiOperation {
  const { def, verb } = spec;
  const status = ref(`${META_SCHEMA_PREFIX}.Status`);
  const obj = ref(spec.schemaName);
  const types = mediaTypes(def);
  const ok = (schema: object, watch = false) => ({ description: 'OK', ...content(mediaTypes(def, watch), schema) });
  const unauthorized = { description: 'Unauthorized' };
  const base = {
    tags: [operationTag(def.group, def.version)],
    description: spec.description,
    operationId: `${OPERATION_PREFIX[verb]}${operationGroupVersion(def.group, def.version)}${spec.namespaced ? 'Namespaced' : ''}${def.kind}${spec.suffix ?? ''}`,
  };
  const extensions = {
    'x-kubernetes-action': ACTION[verb],
    'x-kubernetes-group-version-kind': { ...spec.gvk },
    'x-svc-action': ACTION[verb],
    'x-svc-group-version-kind': { ...spec.gvk },
  };
  switch (verb) {
    case 'list':
      return { ...base, parameters: LIST_PARAMETERS, responses: { '200': ok(ref(spec.listSchemaName!), true), '401': unauthorized }, ...extensions };
    case 'create':
      return {
        ...base,
        parameters: WRITE_PARAMETERS,
        requestBody: { ...content(['*/*'], obj), required: true },
        responses: {
          '200': ok(obj),
          '201': { description: 'Created', ...content(types, obj) },
          '202': { description: 'Accepted', ...content(types, obj) },
          '401': unauthorized,
        },
        ...extensions,
      };
    case 'deletecollection':
      return {
        ...base,
        parameters: DELETE_COLLECTION_PARAMETERS,
        requestBody: content(['*/*'], ref(`${META_SCHEMA_PREFIX}.DeleteOptions`)),
        responses: { '200': ok(status), '401': unauthorized },
        ...extensions,
      };
    case 'read':
      return { ...base, responses: { '200': ok(obj), '401': unauthorized }, ...extensions };
    case 'replace':
      return {
        ...base,
        parameters: WRITE_PARAMETERS,
        requestBody: { ...content(['*/*'], obj), required: true },
        responses: { '200': ok(obj), '201': { description: 'Created', ...content(types, obj) }, '401': unauthorized },
        ...extensions,
      };
    case 'patch': {
      // Kinds from definitions take JSON, merge and apply patches only, as custom resources do in Kubernetes.
      const patchTypes = def.source.type === 'builtin' ? PATCH_CONTENT_TYPES : PATCH_CONTENT_TYPES.filter((t) => !t.startsWith('application/strategic'));
      return {
        ...base,
        parameters: PATCH_PARAMETERS,
        requestBody: { ...content(patchTypes, ref(`${META_SCHEMA_PREFIX}.Patch`)), required: true },
        responses: { '200': ok(obj), '201': { description: 'Created', ...content(types, obj) }, '401': unauthorized },
        ...extensions,
      };
    }
    case 'delete':
      return {
        ...base,
        parameters: DELETE_PARAMETERS,
        requestBody: content(['*/*'], ref(`${META_SCHEMA_PREFIX}.DeleteOptions`)),
        responses: { '200': ok(status), '202': { description: 'Accepted', ...content(types, status) }, '401': unauthorized },
        ...extensions,
      };
  }
}

/** Every path of one kind: collection, item, all-namespaces list, status, scale and the subresources of its strategy. */
export function kindPaths(def: KindDefinition): Record<string, OpenApiPathItem> {
  const base = `/${def.group ? 'apis' : 'api'}/${apiVersionOf(def)}`;
  const collection = def.namespaced ? `${base}/namespaces/{namespace}/${def.resource}` : `${base}/${def.resource}`;
  const item = `${collection}/{name}`;
  const gvk = { group: def.group, version: def.version, kind: def.kind };
  const schemaName = openApiSchemaName(def.group, def.version, def.kind);
  const listSchemaName = openApiSchemaName(def.group, def.version, def.listKind);
  const namespaced = def.namespaced;
  const pretty = QUERY_PARAMETERS.pretty;
  const nsParam = pathParameter('namespace', 'object name and auth scope, such as for teams and projects');
  const nameParam = pathParameter('name', `name of the ${def.kind}`);
  const scopeParams = namespaced ? [nsParam] : [];
  const op = (verb: OperationSpec['verb'], description: string, extra: Partial<OperationSpec> = {}) =>
    operation({ verb, def, namespaced, gvk, schemaName, listSchemaName, description, ...extra });

  const paths: Record<string, OpenApiPathItem> = {
    [collection]: {
      get: op('list', `list or watch objects of kind ${def.kind}`),
      post: op('create', `create a ${def.kind}`),
      delete: op('deletecollection', `delete collection of ${def.kind}`),
      parameters: [...scopeParams, pretty],
    },
    [item]: {
      get: op('read', `read the specified ${def.kind}`),
      put: op('replace', `replace the specified ${def.kind}`),
      patch: op('patch', `partially update the specified ${def.kind}`),
      delete: op('delete', `delete a ${def.kind}`),
      parameters: [nameParam, ...scopeParams, pretty],
    },
  };
  if (namespaced) {
    paths[`${base}/${def.resource}`] = {
      get: operation({
        verb: 'list',
        def,
        namespaced: false,
        gvk,
        schemaName,
        listSchemaName,
        suffix: 'ForAllNamespaces',
        description: `list or watch objects of kind ${def.kind}`,
      }),
      parameters: [pretty],
    };
  }
  if (def.subresources.status) {
    paths[`${item}/status`] = {
      get: op('read', `read status of the specified ${def.kind}`, { suffix: 'Status' }),
      put: op('replace', `replace status of the specified ${def.kind}`, { suffix: 'Status' }),
      patch: op('patch', `partially update status of the specified ${def.kind}`, { suffix: 'Status' }),
      parameters: [nameParam, ...scopeParams, pretty],
    };
  }
  if (def.subresources.scale) {
    const scale = { gvk: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, schemaName: SCALE_SCHEMA_NAME, suffix: 'Scale' };
    paths[`${item}/scale`] = {
      get: op('read', `read scale of the specified ${def.kind}`, scale),
      put: op('replace', `replace scale of the specified ${def.kind}`, scale),
      patch: op('patch', `partially update scale of the specified ${def.kind}`, scale),
      parameters: [nameParam, ...scopeParams, pretty],
    };
  }
  for (const [name, sub] of Object.entries(def.strategy.subresources ?? {})) {
    const suffix = name.charAt(0).toUpperCase() + name.slice(1);
    const create = sub.create;
    paths[`${item}/${name}`] = {
      ...(create
        ? {
            post: op('create', `create ${name} of a ${def.kind}`, {
              suffix,
              gvk: { ...create.kind },
              schemaName: openApiSchemaName(create.kind.group, create.kind.version, create.kind.kind),
            }),
          }
        : {}),
      ...(sub.readable ? { get: op('read', `read ${name} of the specified ${def.kind}`, { suffix }) } : {}),
      ...(sub.updateOf ? { put: op('replace', `replace ${name} of the specified ${def.kind}`, { suffix }) } : {}),
      ...(sub.readable && sub.updateOf ? { patch: op('patch', `partially update ${name} of the specified ${def.kind}`, { suffix }) } : {}),
      parameters: [nameParam, ...scopeParams, pretty],
    };
  }
  return paths;
}

/**
 * The paths of a resource the server answers without storing it, with only the verbs it answers:
 * a review's collection takes POST alone; component statuses are read and listed.
 */
export function nonStoredPaths(res: NonStoredResource): Record<string, OpenApiPathItem> {
  const def: OperationKind = { group: res.group, version: res.version, kind: res.kind, source: { type: 'builtin' } };
  const base = `/${res.group ? 'apis' : 'api'}/${apiVersionOf(res)}`;
  const collection = res.namespaced ? `${base}/namespaces/{namespace}/${res.resource}` : `${base}/${res.resource}`;
  const gvk = { group: res.group, version: res.version, kind: res.kind };
  const schemaName = openApiSchemaName(res.group, res.version, res.kind);
  const listSchemaName = res.listKind === undefined ? undefined : openApiSchemaName(res.group, res.version, res.listKind);
  const scopeParams = res.namespaced ? [pathParameter('namespace', 'object name and auth scope, such as for teams and projects')] : [];
  const op = (verb: OperationSpec['verb'], description: string) =>
    operation({ verb, def, namespaced: res.namespaced, gvk, schemaName, listSchemaName, description });
  const paths: Record<string, OpenApiPathItem> = {};
  const collectionItem: OpenApiPathItem = {};
  if (res.verbs.includes('list')) collectionItem.get = op('list', `list objects of kind ${res.kind}`);
  if (res.verbs.includes('create')) collectionItem.post = op('create', `create a ${res.kind}`);
  if (Object.keys(collectionItem).length) paths[collection] = { ...collectionItem, parameters: [...scopeParams, QUERY_PARAMETERS.pretty] };
  if (res.verbs.includes('get')) {
    paths[`${collection}/{name}`] = {
      get: op('read', `read the specified ${res.kind}`),
      parameters: [pathParameter('name', `name of the ${res.kind}`), ...scopeParams, QUERY_PARAMETERS.pretty],
    };
  }
  return paths;
}
