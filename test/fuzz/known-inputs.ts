import { CUSTOM_GROUP } from './fixtures';
import { NS, type FuzzInput } from './fuzz-input';
import type { FuzzModel, ResourceModel } from './fuzz-model';
import { JSON_PATCH, MERGE_PATCH, STRATEGIC_PATCH } from './request-arbitrary';

function find(model: FuzzModel, predicate: (r: ResourceModel) => boolean, what: string): ResourceModel {
  const resource = model.resources.find(predicate);
  if (resource === undefined) throw new Error(`the server serves no ${what}`);
  return resource;
}

/**
 * The hostile requests of issue 11, sent first in every run (fast-check `examples`): each shape that
 * hurt the server once is tried again on every run, before the generated ones.
 */
export function knownInputs(model: FuzzModel, minRequestTimeoutSeconds: number): FuzzInput[] {
  const configMaps = find(model, (r) => r.group === '' && r.resource === 'configmaps', 'configmaps');
  const secrets = find(model, (r) => r.group === '' && r.resource === 'secrets', 'secrets');
  const custom = find(model, (r) => r.group === CUSTOM_GROUP, 'fixture custom resource');
  const cmTarget = { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'fz-configmap' };
  const cms = `/api/v1/namespaces/${NS}/${configMaps.resource}`;
  const cm = `${cms}/fz-configmap`;
  const hostile = (
    label: string,
    method: string,
    path: string,
    contentType: string,
    shape: string,
    params: Record<string, string | number | boolean>,
    target = cmTarget,
  ): FuzzInput => ({
    family: 'hostile',
    label,
    method,
    path,
    query: contentType === 'application/apply-patch+yaml' ? [['fieldManager', 'fuzzer']] : [],
    headers: [['Content-Type', contentType]],
    body: { encoding: 'hostile', shape, params },
    mustRefuse: [],
    target,
  });
  const configMapParams = { apiVersion: 'v1', kind: 'ConfigMap', name: 'fz-hostile' };
  const watchDeadline = (2 * minRequestTimeoutSeconds + 5) * 1000;
  return [
    {
      family: 'path',
      label: 'double-slash:DELETE',
      method: 'DELETE',
      path: `${cms}//fz-configmap`,
      query: [],
      headers: [],
      mustRefuse: ['an empty path segment'],
    },
    {
      family: 'patch',
      label: `${MERGE_PATCH}:metadata-null`,
      method: 'PATCH',
      path: cm,
      query: [],
      headers: [['Content-Type', MERGE_PATCH]],
      body: { encoding: 'json', value: { metadata: null } },
      mustRefuse: ['a merge patch that deletes metadata (the object loses its name)'],
      target: cmTarget,
    },
    {
      family: 'patch',
      label: `${STRATEGIC_PATCH}:$patch-delete`,
      method: 'PATCH',
      path: cm,
      query: [],
      headers: [['Content-Type', STRATEGIC_PATCH]],
      body: { encoding: 'json', value: { $patch: 'delete' } },
      mustRefuse: ['a strategic merge patch that deletes the whole object'],
      target: cmTarget,
    },
    hostile('deep-yaml:object-create:10000', 'POST', cms, 'application/yaml', 'deep-yaml', {
      ...configMapParams,
      depth: 10_000,
      style: 'flow-seq',
      field: 'data',
    }),
    hostile('deep-json:object-create:100000', 'POST', cms, 'application/json', 'deep-json', {
      ...configMapParams,
      frame: 'object',
      depth: 100_000,
      container: 'array',
      field: 'deep',
    }),
    hostile(
      'deep-json:object-create:100000',
      'POST',
      `/apis/${CUSTOM_GROUP}/v1/namespaces/${NS}/${custom.resource}`,
      'application/json',
      'deep-json',
      { apiVersion: custom.apiVersion, kind: custom.kind, name: 'fz-hostile', frame: 'object', depth: 100_000, container: 'array', field: 'spec.free.deep' },
      { apiVersion: custom.apiVersion, kind: custom.kind, namespace: NS, name: 'fz-hostile' },
    ),
    hostile('json-patch-copy-amplification:json-patch:copies=20', 'PATCH', cm, JSON_PATCH, 'json-patch-copy-amplification', {
      valueBytes: 1024,
      copies: 20,
      container: '/data',
    }),
    hostile('json-patch-many-ops:json-patch:ops=20000', 'PATCH', cm, JSON_PATCH, 'json-patch-many-ops', { ops: 20_000, op: 'test', name: 'fz-configmap' }),
    hostile('yaml-alias-bomb:object-create', 'POST', cms, 'application/yaml', 'yaml-alias-bomb', { ...configMapParams, levels: 9, fanout: 9 }),
    hostile(
      'lone-surrogate:object-create',
      'POST',
      cms,
      'application/json',
      'lone-surrogate',
      { ...configMapParams, name: 'fz-surrogate', unit: 0xd800, form: 'json-escape', where: 'data-value', frame: 'object' },
      { ...cmTarget, name: 'fz-surrogate' },
    ),
    {
      family: 'create',
      label: 'v1/Secret:json:stringData',
      method: 'POST',
      path: `/api/v1/namespaces/${NS}/${secrets.resource}`,
      query: [],
      headers: [['Content-Type', 'application/json']],
      body: { encoding: 'json', value: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'fz-string-data' }, stringData: { password: 'plain' } } },
      mustRefuse: [],
      target: { apiVersion: 'v1', kind: 'Secret', namespace: NS, name: 'fz-string-data' },
    },
    {
      family: 'list',
      label: 'v1/ConfigMap:timeoutSeconds=abc',
      method: 'GET',
      path: cms,
      query: [['timeoutSeconds', 'abc']],
      headers: [],
      mustRefuse: ['timeoutSeconds="abc" is not an integer'],
    },
    {
      family: 'watch',
      label: 'v1/ConfigMap:timeoutSeconds=-5',
      method: 'GET',
      path: cms,
      query: [
        ['watch', '1'],
        ['timeoutSeconds', '-5'],
      ],
      headers: [],
      mustRefuse: [],
      watchDeadlineMs: 5_000,
    },
    {
      family: 'watch',
      label: 'v1/ConfigMap:timeoutSeconds=unset',
      method: 'GET',
      path: cms,
      query: [['watch', '1']],
      headers: [],
      mustRefuse: [],
      watchDeadlineMs: watchDeadline,
    },
    { family: 'path', label: 'long-segment:GET', method: 'GET', path: `${cms}/${'a'.repeat(65_536)}`, query: [], headers: [], mustRefuse: [] },
  ];
}
