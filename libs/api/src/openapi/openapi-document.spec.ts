import { fieldRequired, newInvalid } from '@svc/machinery';
import type { CustomResourceDefinition } from '../kinds/apiextensions/custom-resource-definition';
import type { JsonSchema } from '../schema/json-schema';
import { builtinScheme } from '../scheme/builtin-scheme';
import { kindsFromCrd } from '../scheme/kind-from-crd';
import { openApiV3Document, openApiV3Hash, openApiV3Index, type OpenApiDocument } from './openapi-document';

function widgetCrd(extraVersion = false, extraField = false): CustomResourceDefinition {
  const schema: JsonSchema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          size: { type: 'integer', minimum: 0, exclusiveMinimum: true },
          ports: {
            type: 'array',
            'x-svc-list-type': 'map',
            'x-svc-list-map-keys': ['name'],
            items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
          },
          extra: { type: 'object', 'x-svc-preserve-unknown-fields': true },
          port: { 'x-svc-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
          ...(extraField ? { colour: { type: 'string' } } : {}),
        },
      },
      status: { type: 'object', properties: { replicas: { type: 'integer' } } },
    },
  };
  const version = (name: string, storage: boolean) => ({
    name,
    served: true,
    storage,
    schema: { openAPIV3Schema: schema },
    subresources: { status: {}, scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.replicas' } },
  });
  return {
    apiVersion: 'apiextensions.svc.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'] },
      scope: 'Namespaced',
      versions: extraVersion ? [version('v1', true), version('v2', false)] : [version('v1', true)],
    },
  };
}

type Op = Record<string, unknown> & { parameters?: Array<{ name: string; in: string }> };

/** Every operation of a document, with its path and method. */
function operations(doc: OpenApiDocument): Array<{ path: string; method: string; op: Op }> {
  const out: Array<{ path: string; method: string; op: Op }> = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
      const op = item[method] as Op | undefined;
      if (op) out.push({ path, method, op });
    }
  }
  return out;
}

/** What kubectl's QueryParamVerifierV3 does: the first PATCH operation carrying the GVK decides. */
function supportsQueryParam(doc: OpenApiDocument, gvk: { group: string; version: string; kind: string }, param: string): boolean {
  for (const item of Object.values(doc.paths)) {
    const op = item.patch as Op | undefined;
    if (!op) continue;
    const ext = op['x-kubernetes-group-version-kind'] as Record<string, string> | undefined;
    if (!ext || ext.group !== gvk.group || ext.version !== gvk.version || ext.kind !== gvk.kind) continue;
    return (op.parameters ?? []).some((p) => p.name === param);
  }
  return false;
}

/** What kubectl explain does: the component whose GVK list contains the operation's GVK. */
function schemaForGvk(doc: OpenApiDocument, gvk: { group: string; version: string; kind: string }): JsonSchema | undefined {
  return Object.values(doc.components.schemas).find((s) =>
    ((s['x-kubernetes-group-version-kind'] as Array<Record<string, string>> | undefined) ?? []).some(
      (g) => g.group === gvk.group && g.version === gvk.version && g.kind === gvk.kind,
    ),
  );
}

function collectRefs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => collectRefs(n, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else collectRefs(v, out);
    }
  }
  return out;
}

describe('OpenAPI v3 documents', () => {
  const scheme = builtinScheme();
  const apps = openApiV3Document(scheme, 'apps', 'v1');
  const core = openApiV3Document(scheme, '', 'v1');

  it('describes every kind and its list with both GVK extensions', () => {
    const deployment = apps.components.schemas['io.svc.api.apps.v1.Deployment'];
    expect(deployment['x-kubernetes-group-version-kind']).toEqual([{ group: 'apps', version: 'v1', kind: 'Deployment' }]);
    expect(deployment['x-svc-group-version-kind']).toEqual([{ group: 'apps', version: 'v1', kind: 'Deployment' }]);
    expect(apps.components.schemas['io.svc.api.apps.v1.DeploymentList']['x-kubernetes-group-version-kind']).toEqual([
      { group: 'apps', version: 'v1', kind: 'DeploymentList' },
    ]);
    expect(core.components.schemas['io.svc.api.core.v1.Pod']['x-kubernetes-group-version-kind']).toEqual([{ group: '', version: 'v1', kind: 'Pod' }]);
    for (const name of ['ObjectMeta', 'ListMeta', 'Status', 'DeleteOptions', 'WatchEvent', 'Table', 'Patch']) {
      expect(apps.components.schemas[`io.svc.apimachinery.pkg.apis.meta.v1.${name}`]).toBeDefined();
    }
    expect(apps.components.schemas['io.svc.api.autoscaling.v1.Scale']['x-kubernetes-group-version-kind']).toEqual([
      { group: 'autoscaling', version: 'v1', kind: 'Scale' },
    ]);
  });

  it("names a Status cause's type `reason`, the name Kubernetes' JSON and the server's error bodies use", () => {
    const meta = 'io.svc.apimachinery.pkg.apis.meta.v1';
    const body = newInvalid({ group: 'apps', kind: 'Deployment' }, 'web', [fieldRequired('spec.template', 'is required')]).status;
    const causes = body.details?.causes ?? [];
    expect(causes).toEqual([{ reason: 'FieldValueRequired', message: 'Required value: is required', field: 'spec.template' }]);
    for (const doc of [apps, core]) {
      const cause = doc.components.schemas[`${meta}.StatusCause`];
      expect(Object.keys(cause.properties ?? {})).toEqual(['reason', 'message', 'field']);
      expect(doc.components.schemas[`${meta}.StatusDetails`].properties?.causes?.items).toEqual({ $ref: `#/components/schemas/${meta}.StatusCause` });
      for (const c of causes) for (const key of Object.keys(c)) expect(cause.properties).toHaveProperty(key);
    }
  });

  it('writes the merge markers under the svc and the Kubernetes names, on the field', () => {
    const podSpec = core.components.schemas['io.svc.api.core.v1.PodSpec'];
    const containers = podSpec.properties!.containers;
    expect(containers).toMatchObject({
      type: 'array',
      items: { $ref: '#/components/schemas/io.svc.api.core.v1.Container' },
      'x-svc-patch-merge-key': 'name',
      'x-svc-patch-strategy': 'merge',
      'x-svc-list-type': 'map',
      'x-svc-list-map-keys': ['name'],
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-patch-strategy': 'merge',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
    });
    const ports = core.components.schemas['io.svc.api.core.v1.Container'].properties!.ports;
    expect(ports['x-svc-list-map-keys']).toEqual(['containerPort', 'protocol']);
    expect(ports['x-kubernetes-list-map-keys']).toEqual(['containerPort', 'protocol']);
    // The strategy's patch strategy stays on the field that uses the struct, where kubectl reads it.
    const strategy = apps.components.schemas['io.svc.api.apps.v1.DeploymentSpec'].properties!.strategy;
    expect(strategy).toMatchObject({
      allOf: [{ $ref: '#/components/schemas/io.svc.api.apps.v1.DeploymentStrategy' }],
      default: {},
      'x-kubernetes-patch-strategy': 'retainKeys',
    });
    const rollingUpdate = apps.components.schemas['io.svc.api.apps.v1.DeploymentStrategy'].properties!.rollingUpdate;
    expect(collectRefs(rollingUpdate)).toEqual(['#/components/schemas/io.svc.api.apps.v1.RollingUpdateDeployment']);
    const maxSurge = apps.components.schemas['io.svc.api.apps.v1.RollingUpdateDeployment'].properties!.maxSurge;
    expect(collectRefs(maxSurge)).toEqual(['#/components/schemas/io.svc.apimachinery.pkg.util.intstr.IntOrString']);
  });

  it('never publishes a type array: quantities and int-or-strings are oneOf components, as in Kubernetes', () => {
    const scheme = builtinScheme();
    const typeArrays: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (Array.isArray(node)) node.forEach((n, i) => walk(n, `${at}[${i}]`));
      else if (node && typeof node === 'object') {
        for (const [k, v] of Object.entries(node)) {
          if (k === 'type' && Array.isArray(v)) typeArrays.push(at);
          if (k === 'x-kubernetes-int-or-string') typeArrays.push(`${at} (int-or-string marker on a built-in field)`);
          walk(v, `${at}.${k}`);
        }
      }
    };
    for (const g of scheme.groups()) for (const v of g.versions) walk(openApiV3Document(scheme, g.name, v.version), `${g.name}/${v.version}`);
    expect(typeArrays).toEqual([]);
    const schemas = core.components.schemas;
    expect(schemas['io.svc.apimachinery.pkg.api.resource.Quantity']).toMatchObject({ oneOf: [{ type: 'string' }, { type: 'number' }] });
    expect(schemas['io.svc.apimachinery.pkg.util.intstr.IntOrString']).toMatchObject({
      format: 'int-or-string',
      oneOf: [{ type: 'integer' }, { type: 'string' }],
    });
    const resources = schemas['io.svc.api.core.v1.ResourceRequirements'].properties!;
    expect(resources.limits.additionalProperties).toEqual({ $ref: '#/components/schemas/io.svc.apimachinery.pkg.api.resource.Quantity' });
  });

  it('names the structs kinds are made of, as Kubernetes names its types', () => {
    const deployment = apps.components.schemas['io.svc.api.apps.v1.Deployment'];
    expect(deployment.properties!.spec).toEqual({
      allOf: [{ $ref: '#/components/schemas/io.svc.api.apps.v1.DeploymentSpec' }],
      description: 'The desired state of the Deployment, as its owner writes it.',
    });
    const spec = apps.components.schemas['io.svc.api.apps.v1.DeploymentSpec'];
    // A field that says something of its own wraps the reference, as Kubernetes does.
    expect(spec.properties!.selector).toMatchObject({ allOf: [{ $ref: '#/components/schemas/io.svc.apimachinery.pkg.apis.meta.v1.LabelSelector' }] });
    expect(spec.properties!.template).toMatchObject({ allOf: [{ $ref: '#/components/schemas/io.svc.api.core.v1.PodTemplateSpec' }] });
    expect(spec.required).toEqual(['selector', 'template']);
    // Template metadata, whatever its name rule, is documented as the one ObjectMeta.
    expect(apps.components.schemas['io.svc.api.core.v1.PodTemplateSpec'].properties!.metadata).toMatchObject({
      allOf: [{ $ref: '#/components/schemas/io.svc.apimachinery.pkg.apis.meta.v1.ObjectMeta' }],
    });
    expect(Object.keys(apps.components.schemas)).toEqual(
      expect.arrayContaining([
        'io.svc.api.core.v1.PodSpec',
        'io.svc.api.core.v1.Container',
        'io.svc.api.apps.v1.DeploymentStatus',
        'io.svc.apimachinery.pkg.apis.meta.v1.OwnerReference',
      ]),
    );
    expect(Object.keys(core.components.schemas)).not.toContain('io.svc.api.apps.v1.DeploymentSpec');
    // Five kinds that share the pod template's structs rather than repeating them.
    expect(JSON.stringify(apps).length).toBeLessThan(400_000);
  });

  it('references the shared ObjectMeta from every kind, and every reference resolves', () => {
    expect(apps.components.schemas['io.svc.api.apps.v1.Deployment'].properties!.metadata).toMatchObject({
      allOf: [{ $ref: '#/components/schemas/io.svc.apimachinery.pkg.apis.meta.v1.ObjectMeta' }],
    });
    for (const doc of [apps, core]) {
      for (const r of collectRefs(doc)) expect(doc.components.schemas[r.replace('#/components/schemas/', '')]).toBeDefined();
    }
  });

  it('has collection, item, all-namespaces, status and scale paths with Kubernetes operation ids and actions', () => {
    const ops = operations(apps);
    const byId = new Map(ops.map((o) => [o.op.operationId as string, o]));
    expect(byId.get('listAppsV1NamespacedDeployment')).toMatchObject({ path: '/apis/apps/v1/namespaces/{namespace}/deployments', method: 'get' });
    expect(byId.get('createAppsV1NamespacedDeployment')).toMatchObject({ method: 'post' });
    expect(byId.get('deleteCollectionAppsV1NamespacedDeployment')).toMatchObject({ method: 'delete' });
    expect(byId.get('readAppsV1NamespacedDeployment')).toMatchObject({ path: '/apis/apps/v1/namespaces/{namespace}/deployments/{name}', method: 'get' });
    expect(byId.get('replaceAppsV1NamespacedDeployment')).toMatchObject({ method: 'put' });
    expect(byId.get('patchAppsV1NamespacedDeployment')).toMatchObject({ method: 'patch' });
    expect(byId.get('deleteAppsV1NamespacedDeployment')).toMatchObject({ method: 'delete' });
    expect(byId.get('listAppsV1DeploymentForAllNamespaces')).toMatchObject({ path: '/apis/apps/v1/deployments' });
    expect(byId.get('patchAppsV1NamespacedDeploymentStatus')?.op['x-kubernetes-group-version-kind']).toEqual({
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
    });
    expect(byId.get('replaceAppsV1NamespacedDeploymentScale')?.op['x-kubernetes-group-version-kind']).toEqual({
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
    });
    expect(byId.get('patchAppsV1NamespacedDeployment')?.op['x-kubernetes-action']).toBe('patch');
    expect(byId.get('createAppsV1NamespacedDeployment')?.op['x-kubernetes-action']).toBe('post');
    const coreIds = operations(core).map((o) => o.op.operationId);
    expect(coreIds).toEqual(
      expect.arrayContaining(['readCoreV1Namespace', 'replaceCoreV1NamespaceFinalize', 'listCoreV1PodForAllNamespaces', 'patchCoreV1NamespacedPodStatus']),
    );
  });

  it('lists the query parameters of each verb on the operation, and name, namespace and pretty on the path', () => {
    const item = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'];
    expect((item.parameters as Array<{ name: string }>).map((p) => p.name)).toEqual(['name', 'namespace', 'pretty']);
    const names = (op: unknown) => ((op as Op).parameters ?? []).map((p) => p.name);
    expect(names(item.patch)).toEqual(['dryRun', 'fieldManager', 'fieldValidation', 'force']);
    expect(names(item.put)).toEqual(['dryRun', 'fieldManager', 'fieldValidation']);
    expect(names(item.delete)).toEqual(expect.arrayContaining(['dryRun', 'gracePeriodSeconds', 'propagationPolicy']));
    const collection = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments'];
    expect(names(collection.get)).toEqual(
      expect.arrayContaining([
        'labelSelector',
        'fieldSelector',
        'limit',
        'continue',
        'resourceVersion',
        'resourceVersionMatch',
        'watch',
        'allowWatchBookmarks',
        'timeoutSeconds',
        'sendInitialEvents',
      ]),
    );
    expect(names(collection.post)).toEqual(['dryRun', 'fieldManager', 'fieldValidation']);
    // Every PATCH of a kind lists fieldValidation: kubectl's check stops at the first one it meets, in any order.
    for (const { method, op } of [...operations(apps), ...operations(core)]) {
      if (method === 'patch') expect(names(op)).toContain('fieldValidation');
    }
  });

  it('answers kubectl’s field-validation check and explain lookup for every kind', () => {
    for (const [doc, group] of [
      [apps, 'apps'],
      [core, ''],
    ] as const) {
      for (const def of scheme.resourcesIn(group, 'v1')) {
        const gvk = { group, version: 'v1', kind: def.kind };
        expect(supportsQueryParam(doc, gvk, 'fieldValidation')).toBe(true);
        expect(schemaForGvk(doc, gvk)).toBeDefined();
      }
    }
  });

  it('offers strategic merge patch for built-in kinds only', () => {
    const patchTypes = (doc: OpenApiDocument, path: string) => Object.keys(((doc.paths[path].patch as Op).requestBody as { content: object }).content);
    expect(patchTypes(apps, '/apis/apps/v1/namespaces/{namespace}/deployments/{name}')).toEqual([
      'application/apply-patch+yaml',
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
    ]);
    const withCrd = builtinScheme();
    for (const def of kindsFromCrd(widgetCrd())) withCrd.register(def);
    const doc = openApiV3Document(withCrd, 'example.com', 'v1');
    expect(patchTypes(doc, '/apis/example.com/v1/namespaces/{namespace}/widgets/{name}')).not.toContain('application/strategic-merge-patch+json');
    expect(supportsQueryParam(doc, { group: 'example.com', version: 'v1', kind: 'Widget' }, 'fieldValidation')).toBe(true);
  });

  it('serves a CRD kind through the same generator, in OpenAPI 3.0 spellings', () => {
    const withCrd = builtinScheme();
    for (const def of kindsFromCrd(widgetCrd())) withCrd.register(def);
    const doc = openApiV3Document(withCrd, 'example.com', 'v1');
    const widget = doc.components.schemas['com.example.v1.Widget'];
    expect(widget['x-kubernetes-group-version-kind']).toEqual([{ group: 'example.com', version: 'v1', kind: 'Widget' }]);
    const spec = widget.properties!.spec.properties!;
    // The engine reads draft 7 (a numeric exclusiveMinimum); OpenAPI 3.0 readers expect the boolean form.
    expect(spec.size).toMatchObject({ minimum: 0, exclusiveMinimum: true });
    expect(spec.ports).toMatchObject({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] });
    expect(spec.ports['x-svc-unique-map-keys']).toBeUndefined();
    expect(spec.extra['x-kubernetes-preserve-unknown-fields']).toBe(true);
    // A CRD's int-or-string keeps its marker, as Kubernetes publishes custom resource schemas.
    expect(spec.port['x-kubernetes-int-or-string']).toBe(true);
    expect(spec.port.$ref).toBeUndefined();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/status',
        '/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/scale',
        '/apis/example.com/v1/widgets',
      ]),
    );
    expect(operations(doc).map((o) => o.op.operationId)).toContain('listExampleComV1NamespacedWidget');
  });

  it('indexes every served group version, with hashes that follow the documents', () => {
    const s = builtinScheme();
    expect(Object.keys(openApiV3Index(s).paths)).toEqual([
      'api/v1',
      'apis/admissionregistration.svc.io/v1',
      'apis/apiextensions.svc.io/v1',
      'apis/apiregistration.svc.io/v1',
      'apis/apps/v1',
      'apis/autoscaling/v2',
      'apis/autoscaling/v1',
      'apis/batch/v1',
      'apis/certificates.svc.io/v1',
      'apis/coordination.svc.io/v1',
      'apis/discovery.svc.io/v1',
      'apis/events.svc.io/v1',
      'apis/flowcontrol.apiserver.svc.io/v1',
      'apis/networking.svc.io/v1',
      'apis/node.svc.io/v1',
      'apis/policy/v1',
      'apis/rbac.authorization.svc.io/v1',
      'apis/scheduling.svc.io/v1',
      'apis/storage.svc.io/v1',
      'apis/admissionregistration.k8s.io/v1',
      'apis/apiextensions.k8s.io/v1',
      'apis/apiregistration.k8s.io/v1',
      'apis/certificates.k8s.io/v1',
      'apis/coordination.k8s.io/v1',
      'apis/discovery.k8s.io/v1',
      'apis/events.k8s.io/v1',
      'apis/flowcontrol.apiserver.k8s.io/v1',
      'apis/networking.k8s.io/v1',
      'apis/node.k8s.io/v1',
      'apis/rbac.authorization.k8s.io/v1',
      'apis/scheduling.k8s.io/v1',
      'apis/storage.k8s.io/v1',
    ]);
    const before = openApiV3Hash(openApiV3Document(s, 'example.com', 'v1'));
    for (const def of kindsFromCrd(widgetCrd())) s.register(def);
    const one = openApiV3Hash(openApiV3Document(s, 'example.com', 'v1'));
    expect(one).not.toBe(before);
    expect(one).toMatch(/^[0-9A-F]{128}$/);
    expect(openApiV3Hash(openApiV3Document(s, 'example.com', 'v1'))).toBe(one);
    s.unregisterCrd('widgets.example.com');
    for (const def of kindsFromCrd(widgetCrd(true))) s.register(def);
    // A version added elsewhere leaves this document, and so its hash, as it was.
    expect(openApiV3Hash(openApiV3Document(s, 'example.com', 'v1'))).toBe(one);
    s.unregisterCrd('widgets.example.com');
    for (const def of kindsFromCrd(widgetCrd(true, true))) s.register(def);
    expect(openApiV3Hash(openApiV3Document(s, 'example.com', 'v1'))).not.toBe(one);
    const index = openApiV3Index(s, { hashes: { 'apis/example.com/v1': one }, include: (g) => g !== 'coordination.svc.io' });
    expect(index.paths['apis/example.com/v1']).toEqual({ serverRelativeURL: `/openapi/v3/apis/example.com/v1?hash=${one}` });
    expect(index.paths['apis/example.com/v2']).toEqual({ serverRelativeURL: '/openapi/v3/apis/example.com/v2' });
    expect(index.paths['apis/coordination.svc.io/v1']).toBeUndefined();
  });
});
