import type { JsonSchema } from '../json-schema';
import { JsonObject } from '../patch';
import { StatusError } from '../status';
import { ApplyPatchOptions, applyPatch, updateManagedFields } from './index';
import { deploymentSchema, deploymentZeroValue } from './testing/deployment-schema';
import { entryOf, managersOf, ownedBy } from './testing/ownership-helpers';
import { thrownBy } from '../testing/thrown-by';

const T0 = new Date('2024-05-01T10:00:00Z');
const T1 = new Date('2024-05-01T10:05:00Z');

function apply(live: JsonObject | undefined, applied: JsonObject, manager: string, extra: Partial<ApplyPatchOptions> = {}): JsonObject {
  return applyPatch({
    live,
    applied,
    manager,
    force: false,
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    schema: deploymentSchema,
    now: T0,
    resetFields: [['status']],
    ...extra,
  }).object;
}

function update(live: JsonObject, updated: JsonObject, manager: string, now = T1): JsonObject {
  const managedFields = updateManagedFields({ live, updated, manager, apiVersion: 'apps/v1', schema: deploymentSchema, now, resetFields: [['status']] });
  const metadata = { ...(updated.metadata as JsonObject) };
  if (managedFields.length > 0) metadata.managedFields = managedFields as unknown as JsonObject[];
  else delete metadata.managedFields;
  return { ...updated, metadata };
}

const failure = (run: () => unknown): StatusError => thrownBy(run, StatusError);

/** An applied configuration; an empty `spec` is left out (an applied `spec: {}` is itself a field the applier owns). */
function config(spec: JsonObject, metadata: JsonObject = {}): JsonObject {
  const applied: JsonObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', ...metadata } };
  if (Object.keys(spec).length > 0) applied.spec = spec;
  return applied;
}

function spec(object: JsonObject): JsonObject {
  return object.spec as JsonObject;
}

function podSpec(object: JsonObject): JsonObject {
  return ((spec(object).template as JsonObject).spec as JsonObject) ?? {};
}

function containers(...list: JsonObject[]): JsonObject {
  return { template: { spec: { containers: list } } };
}

describe('applyPatch', () => {
  describe('the Apply entry', () => {
    it('records the applied fields exactly as Kubernetes serializes them', () => {
      const applied: JsonObject = {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'nginx', namespace: 'default', labels: { app: 'nginx' } },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'nginx' } },
          template: {
            metadata: { labels: { app: 'nginx' } },
            spec: { containers: [{ name: 'nginx', image: 'nginx:1.25', ports: [{ containerPort: 80 }] }] },
          },
        },
      };
      const { object, managedFields } = applyPatch({
        live: undefined,
        applied,
        manager: 'kubectl',
        force: false,
        apiVersion: 'apps/v1',
        schema: deploymentSchema,
        now: T0,
      });

      expect(JSON.stringify(managedFields)).toBe(
        JSON.stringify([
          {
            manager: 'kubectl',
            operation: 'Apply',
            apiVersion: 'apps/v1',
            time: '2024-05-01T10:00:00Z',
            fieldsType: 'FieldsV1',
            fieldsV1: {
              'f:metadata': { 'f:labels': { 'f:app': {} } },
              'f:spec': {
                'f:replicas': {},
                'f:selector': {},
                'f:template': {
                  'f:metadata': { 'f:labels': { 'f:app': {} } },
                  'f:spec': {
                    'f:containers': {
                      'k:{"name":"nginx"}': {
                        '.': {},
                        'f:image': {},
                        'f:name': {},
                        'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
                      },
                    },
                  },
                },
              },
            },
          },
        ]),
      );
      expect((object.metadata as JsonObject).managedFields).toEqual(managedFields);
      expect(spec(object).replicas).toBe(2);
    });

    it('creates the object when there is none and stamps the entry', () => {
      const created = apply(undefined, config({ replicas: 1 }), 'alpha');
      expect(created).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 1 } });
      expect(entryOf(created, 'alpha')).toMatchObject({ operation: 'Apply', apiVersion: 'apps/v1', time: '2024-05-01T10:00:00Z' });
      expect(ownedBy(created, 'alpha')).toEqual(['.spec.replicas']);
    });

    it('keeps the entry and its time when the same configuration is applied again', () => {
      const first = apply(undefined, config({ replicas: 1 }, { labels: { app: 'web' } }), 'alpha');
      const again = apply(first, config({ replicas: 1 }, { labels: { app: 'web' } }), 'alpha', { now: T1 });
      expect(again).toEqual(first);
    });

    it('leaves server-managed fields and the resource status to no one', () => {
      const live = apply(undefined, config({ replicas: 1 }), 'alpha');
      (live.metadata as JsonObject).uid = 'u-1';
      (live.metadata as JsonObject).resourceVersion = '7';
      live.status = { replicas: 1 };
      const result = apply(live, { ...config({ replicas: 2 }, { uid: 'u-1', namespace: 'default' }), status: { replicas: 9 } }, 'alpha');
      expect(ownedBy(result, 'alpha')).toEqual(['.spec.replicas']);
      // The main resource cannot change the status: the server resets it.
      expect(result.status).toEqual({ replicas: 1 });
    });
  });

  it('changes neither the live object nor the configuration', () => {
    const freeze = <T>(value: T): T => {
      if (value && typeof value === 'object') {
        Object.values(value).forEach(freeze);
        Object.freeze(value);
      }
      return value;
    };
    const live = freeze(apply(undefined, config({ replicas: 1, ...containers({ name: 'a', image: 'a:1' }, { name: 'b' }) }, { labels: { x: 'y' } }), 'alpha'));
    const applied = freeze(config({ replicas: 2, paused: null, ...containers({ name: 'a', image: 'a:2' }) }));
    const result = apply(live, applied, 'alpha');
    expect(podSpec(result).containers).toEqual([{ name: 'a', image: 'a:2' }]);
    expect(spec(result).replicas).toBe(2);
  });

  describe('merging', () => {
    it('merges keyed list items by key and keeps Kubernetes list order', () => {
      const live = apply(undefined, config(containers({ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' })), 'alpha');
      const result = apply(live, config(containers({ name: 'c', image: 'c:1' }, { name: 'a', image: 'a:1' })), 'beta');
      expect(podSpec(result).containers).toEqual([
        { name: 'c', image: 'c:1' },
        { name: 'a', image: 'a:1' },
        { name: 'b', image: 'b:1' },
      ]);
      expect(ownedBy(result, 'beta')).toEqual([
        '.spec.template.spec.containers[name="a"]',
        '.spec.template.spec.containers[name="c"]',
        '.spec.template.spec.containers[name="a"].image',
        '.spec.template.spec.containers[name="a"].name',
        '.spec.template.spec.containers[name="c"].image',
        '.spec.template.spec.containers[name="c"].name',
      ]);
    });

    it('merges sets by value', () => {
      const live = apply(undefined, config({}, { finalizers: ['a'] }), 'alpha');
      const result = apply(live, config({}, { finalizers: ['b'] }), 'beta');
      expect((result.metadata as JsonObject).finalizers).toEqual(['a', 'b']);
      expect(entryOf(result, 'beta').fieldsV1).toEqual({ 'f:metadata': { 'f:finalizers': { 'v:"b"': {} } } });
    });

    it('owns an applied empty object as a field of its own, from the first apply on', () => {
      const created = apply(undefined, config({ strategy: {} }), 'alpha');
      expect(spec(created)).toEqual({ strategy: {} });
      expect(entryOf(created, 'alpha').fieldsV1).toEqual({ 'f:spec': { 'f:strategy': {} } });
      const again = apply(created, config({ strategy: {} }), 'alpha');
      expect(managersOf(again)).toEqual(['alpha/Apply']);
      // Another applier's empty object is shared, not a conflict; dropping it leaves the field to the other.
      const shared = apply(again, config({ strategy: {} }), 'beta');
      expect(managersOf(shared)).toEqual(['alpha/Apply', 'beta/Apply']);
      expect(spec(apply(shared, config({ replicas: 2 }), 'alpha'))).toEqual({ replicas: 2, strategy: {} });
      // Left by its only applier, the empty object goes.
      expect(spec(apply(again, config({ replicas: 2 }), 'alpha'))).toEqual({ replicas: 2 });
    });

    it('unsets a field applied as null and keeps owning it', () => {
      const live = apply(undefined, config({ replicas: 3, paused: true }), 'alpha');
      const result = apply(live, config({ replicas: 3, paused: null }), 'alpha');
      expect(spec(result)).toEqual({ replicas: 3 });
      expect(ownedBy(result, 'alpha')).toEqual(['.spec.paused', '.spec.replicas']);
    });

    it('refuses managedFields in the body, another kind, and list items without their keys', () => {
      const withManaged = failure(() => apply(undefined, config({}, { managedFields: [] }), 'alpha'));
      expect(withManaged.status).toMatchObject({ code: 400, reason: 'BadRequest', message: 'metadata.managedFields must be nil' });

      const otherKind = failure(() => apply(undefined, { ...config({}), kind: 'ReplicaSet' }, 'alpha'));
      expect(otherKind.status).toMatchObject({ code: 400, message: 'invalid object type: apps/v1, Kind=ReplicaSet' });

      const noKey = failure(() => apply(undefined, config(containers({ image: 'x' })), 'alpha'));
      expect(noKey.status.message).toBe(
        'failed to create typed patch object: .spec.template.spec.containers: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)',
      );

      const twice = failure(() => apply(undefined, config(containers({ name: 'a' }, { name: 'a' })), 'alpha'));
      expect(twice.status.message).toBe('failed to create typed patch object: .spec.template.spec.containers: duplicate entries for key [name="a"]');
    });
  });

  describe('conflicts between appliers (rules 4 and 5)', () => {
    const base = (): JsonObject => apply(undefined, config({ replicas: 2, ...containers({ name: 'nginx', image: 'nginx:1' }) }), 'alpha');

    it('refuses to change a field another applier owns', () => {
      const error = failure(() => apply(base(), config({ replicas: 3 }), 'beta'));
      expect(error.status).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Apply failed with 1 conflict: conflict with "alpha": .spec.replicas',
        reason: 'Conflict',
        details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "alpha"', field: '.spec.replicas' }] },
        code: 409,
      });
    });

    it('lists every conflict by manager', () => {
      const live = update(base(), { ...base(), spec: { ...spec(base()), minReadySeconds: 5 } }, 'kubectl-edit');
      const error = failure(() => apply(live, config({ replicas: 3, minReadySeconds: 9, ...containers({ name: 'nginx', image: 'nginx:2' }) }), 'beta'));
      expect(error.status.message).toBe(
        'Apply failed with 3 conflicts: conflicts with "alpha":\n' +
          '- .spec.replicas\n' +
          '- .spec.template.spec.containers[name="nginx"].image\n' +
          'conflicts with "kubectl-edit" using apps/v1:\n' +
          '- .spec.minReadySeconds',
      );
      expect(error.status.details?.causes).toEqual([
        { reason: 'FieldManagerConflict', message: 'conflict with "alpha"', field: '.spec.replicas' },
        { reason: 'FieldManagerConflict', message: 'conflict with "alpha"', field: '.spec.template.spec.containers[name="nginx"].image' },
        { reason: 'FieldManagerConflict', message: 'conflict with "kubectl-edit" using apps/v1', field: '.spec.minReadySeconds' },
      ]);
    });

    it('(a) with force takes the field from its owner', () => {
      const result = apply(base(), config({ replicas: 3 }), 'beta', { force: true });
      expect(spec(result).replicas).toBe(3);
      expect(ownedBy(result, 'beta')).toEqual(['.spec.replicas']);
      expect(ownedBy(result, 'alpha')).not.toContain('.spec.replicas');
    });

    it('(b) without the field in the configuration leaves the value and claims nothing', () => {
      const result = apply(base(), config({ minReadySeconds: 4 }), 'beta');
      expect(spec(result).replicas).toBe(2);
      expect(ownedBy(result, 'beta')).toEqual(['.spec.minReadySeconds']);
      expect(ownedBy(result, 'alpha')).toContain('.spec.replicas');
    });

    it('(c) with the live value shares ownership', () => {
      const result = apply(base(), config({ replicas: 2 }), 'beta');
      expect(ownedBy(result, 'beta')).toEqual(['.spec.replicas']);
      expect(ownedBy(result, 'alpha')).toContain('.spec.replicas');
    });
  });

  describe('removing what is no longer applied (rule 6)', () => {
    const first = (): JsonObject =>
      apply(
        undefined,
        config(
          { replicas: 2, ...containers({ name: 'app', image: 'app:1' }, { name: 'sidecar', image: 'proxy:1' }) },
          { labels: { app: 'web', tier: 'front' } },
        ),
        'alpha',
      );

    it('deletes a field, a map entry and a list item nobody else owns', () => {
      const result = apply(first(), config(containers({ name: 'app', image: 'app:1' }), { labels: { app: 'web' } }), 'alpha');
      expect((result.metadata as JsonObject).labels).toEqual({ app: 'web' });
      expect(spec(result).replicas).toBeUndefined();
      expect(podSpec(result).containers).toEqual([{ name: 'app', image: 'app:1' }]);
    });

    it('keeps what another manager owns, with its value', () => {
      const shared = apply(first(), config({ replicas: 2, ...containers({ name: 'sidecar', image: 'proxy:1' }) }, { labels: { tier: 'front' } }), 'beta');
      const result = apply(shared, config(containers({ name: 'app', image: 'app:1' }), { labels: { app: 'web' } }), 'alpha');
      expect((result.metadata as JsonObject).labels).toEqual({ app: 'web', tier: 'front' });
      expect(spec(result).replicas).toBe(2);
      expect(podSpec(result).containers).toEqual([
        { name: 'app', image: 'app:1' },
        { name: 'sidecar', image: 'proxy:1' },
      ]);
      expect(ownedBy(result, 'alpha')).not.toContain('.spec.replicas');
    });

    it('keeps fields an update wrote inside an item the applier drops', () => {
      const live = first();
      const edited = update(
        live,
        {
          ...live,
          spec: {
            ...spec(live),
            template: {
              spec: {
                containers: [
                  { name: 'app', image: 'app:1' },
                  { name: 'sidecar', image: 'proxy:2' },
                ],
              },
            },
          },
        },
        'kubectl-edit',
      );
      const result = apply(edited, config({ replicas: 2, ...containers({ name: 'app', image: 'app:1' }) }, { labels: { app: 'web', tier: 'front' } }), 'alpha');
      expect(podSpec(result).containers).toEqual([
        { name: 'app', image: 'app:1' },
        { name: 'sidecar', image: 'proxy:2' },
      ]);
    });

    it('deletes a set item nobody else owns and keeps one another applier shares', () => {
      const live = apply(undefined, config({}, { finalizers: ['a', 'b', 'c'] }), 'alpha');
      const shared = apply(live, config({}, { finalizers: ['c'] }), 'beta');
      const result = apply(shared, config({}, { finalizers: ['a'] }), 'alpha');
      expect((result.metadata as JsonObject).finalizers).toEqual(['a', 'c']);
    });

    it('never removes fields it did not apply before', () => {
      const live = update(first(), { ...first(), spec: { ...spec(first()), minReadySeconds: 7 } }, 'kubectl-edit');
      const result = apply(live, config({ replicas: 2 }), 'alpha');
      expect(spec(result).minReadySeconds).toBe(7);
    });
  });

  describe('ownership transfer (rule 10)', () => {
    it('moves a field to the applier that keeps it and drops a manager left with nothing', () => {
      const live = apply(undefined, config({ replicas: 2, minReadySeconds: 1 }), 'alpha');
      const shared = apply(live, config({ replicas: 2 }), 'autoscaler');
      expect(ownedBy(shared, 'alpha')).toContain('.spec.replicas');
      expect(ownedBy(shared, 'autoscaler')).toEqual(['.spec.replicas']);

      const handedOver = apply(shared, config({ minReadySeconds: 1 }), 'alpha');
      expect(spec(handedOver).replicas).toBe(2);
      expect(ownedBy(handedOver, 'alpha')).toEqual(['.spec.minReadySeconds']);
      expect(ownedBy(handedOver, 'autoscaler')).toEqual(['.spec.replicas']);

      const released = apply(handedOver, config({}), 'autoscaler');
      expect(managersOf(released)).toEqual(['alpha/Apply']);
    });
  });

  describe('atomic values', () => {
    it('owns an atomic list whole: another applier changing an element conflicts on the list', () => {
      const live = apply(undefined, config({ template: { spec: { tolerations: [{ key: 'a', operator: 'Exists' }] } } }), 'alpha');
      expect(ownedBy(live, 'alpha')).toEqual(['.spec.template.spec.tolerations']);
      const error = failure(() => apply(live, config({ template: { spec: { tolerations: [{ key: 'b', operator: 'Exists' }] } } }), 'beta'));
      expect(error.status.details?.causes?.[0].field).toBe('.spec.template.spec.tolerations');

      const forced = apply(live, config({ template: { spec: { tolerations: [{ key: 'b', operator: 'Exists' }] } } }), 'beta', { force: true });
      expect(podSpec(forced).tolerations).toEqual([{ key: 'b', operator: 'Exists' }]);
      expect(managersOf(forced)).toEqual(['beta/Apply']);
    });

    it('replaces an atomic map whole (a label selector)', () => {
      const live = apply(undefined, config({ selector: { matchLabels: { app: 'web', tier: 'a' } } }), 'alpha');
      const result = apply(live, config({ selector: { matchLabels: { app: 'web' } } }), 'alpha');
      expect(spec(result).selector).toEqual({ matchLabels: { app: 'web' } });
      expect(ownedBy(result, 'alpha')).toEqual(['.spec.selector']);
    });
  });

  describe('custom resources without markers', () => {
    const crdSchema: JsonSchema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            size: { type: 'integer' },
            items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
            settings: { type: 'object', additionalProperties: { type: 'string' } },
          },
        },
      },
    };
    const cr = (s: JsonObject): JsonObject => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', labels: { team: 'x' } }, spec: s });
    const applyCr = (live: JsonObject | undefined, s: JsonObject, manager: string, schema: JsonSchema | null = crdSchema): JsonObject =>
      applyPatch({ live, applied: cr(s), manager, force: false, apiVersion: 'example.com/v1', schema: schema ?? undefined, now: T0 }).object;

    it('holds lists atomic and merges maps key by key', () => {
      const live = applyCr(undefined, { items: [{ name: 'a' }], settings: { x: '1' } }, 'alpha');
      expect(entryOf(live, 'alpha').fieldsV1).toEqual({
        'f:metadata': { 'f:labels': { 'f:team': {} } },
        'f:spec': { 'f:items': {}, 'f:settings': { 'f:x': {} } },
      });
      const error = failure(() => applyCr(live, { items: [{ name: 'b' }] }, 'beta'));
      expect(error.status.message).toBe('Apply failed with 1 conflict: conflict with "alpha": .spec.items');

      const merged = applyCr(live, { settings: { y: '2' } }, 'beta');
      expect(merged.spec).toEqual({ items: [{ name: 'a' }], settings: { x: '1', y: '2' } });
    });

    it('deduces everything without a schema: keys as fields, lists atomic', () => {
      const live = applyCr(undefined, { items: [{ name: 'a' }], nested: { deep: { on: true } } }, 'alpha', null);
      expect(entryOf(live, 'alpha').fieldsV1).toEqual({
        'f:metadata': { 'f:labels': { 'f:team': {} } },
        'f:spec': { '.': {}, 'f:items': {}, 'f:nested': { '.': {}, 'f:deep': { '.': {}, 'f:on': {} } } },
      });
      const error = failure(() => applyCr(live, { items: [{ name: 'a' }, { name: 'b' }] }, 'beta', null));
      expect(error.status.details?.causes?.[0].field).toBe('.spec.items');
    });
  });

  describe('objects with untracked fields', () => {
    it('gives an untracked object to before-first-apply, which the first apply can conflict with', () => {
      const untracked: JsonObject = { ...config({ replicas: 1, minReadySeconds: 3 }), metadata: { name: 'web', uid: 'u' } };
      const error = failure(() => apply(untracked, config({ replicas: 2 }), 'alpha'));
      expect(error.status.message).toBe('Apply failed with 1 conflict: conflict with "before-first-apply" using apps/v1: .spec.replicas');

      const result = apply(untracked, config({ replicas: 1 }), 'alpha', { emptyObject: deploymentZeroValue });
      expect(managersOf(result)).toEqual(['alpha/Apply', 'before-first-apply/Update']);
      expect(ownedBy(result, 'before-first-apply')).toEqual(['.spec.minReadySeconds', '.spec.replicas']);
      // Compared with {}, the untracked spec itself counts as created.
      expect(ownedBy(apply(untracked, config({ replicas: 1 }), 'alpha'), 'before-first-apply')).toEqual(['.spec', '.spec.minReadySeconds', '.spec.replicas']);
    });
  });

  describe('objects last applied client-side', () => {
    const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
    /** What `kubectl apply` (client-side) leaves: the annotation, and the fields owned by its Update manager. */
    function clientSideApplied(s: JsonObject, live: JsonObject = s): JsonObject {
      const fieldsV1: JsonObject = { 'f:metadata': { 'f:annotations': { '.': {}, [`f:${LAST_APPLIED}`]: {} } }, 'f:spec': {} };
      for (const key of Object.keys(s)) (fieldsV1['f:spec'] as JsonObject)[`f:${key}`] = {};
      const annotations = { [LAST_APPLIED]: JSON.stringify(config(s, { annotations: {} })) + '\n' };
      const managedFields = [
        { manager: 'kubectl-client-side-apply', operation: 'Update', apiVersion: 'apps/v1', time: '2024-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1 },
      ];
      return config(live, { annotations, managedFields });
    }

    it("lets kubectl's server-side apply take the fields the client-side apply set, and keeps the annotation current", () => {
      const live = clientSideApplied({ replicas: 1, paused: false });
      const result = apply(live, config({ replicas: 3 }), 'kubectl');
      expect(spec(result).replicas).toBe(3);
      expect(ownedBy(result, 'kubectl')).toEqual(['.spec.replicas']);
      expect(ownedBy(result, 'kubectl-client-side-apply')).toContain('.spec.paused');
      const annotations = (result.metadata as JsonObject).annotations as JsonObject;
      expect(annotations[LAST_APPLIED]).toBe('{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":3}}\n');
    });

    it('still conflicts for another manager, and for a field changed since the client-side apply', () => {
      expect(failure(() => apply(clientSideApplied({ replicas: 1 }), config({ replicas: 3 }), 'other')).status.code).toBe(409);
      const scaled = clientSideApplied({ replicas: 1 }, { replicas: 5 });
      expect(failure(() => apply(scaled, config({ replicas: 3 }), 'kubectl')).status.message).toBe(
        'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas',
      );
    });
  });

  describe('schema changes (rule 8)', () => {
    it('gives the whole value to a manager of an element once the schema makes it atomic', () => {
      const live: JsonObject = {
        ...config({ template: { spec: { nodeSelector: { disk: 'ssd', zone: 'a' } } } }),
        metadata: {
          name: 'web',
          managedFields: [
            {
              manager: 'alpha',
              operation: 'Apply',
              apiVersion: 'apps/v1',
              time: '2024-01-01T00:00:00Z',
              fieldsType: 'FieldsV1',
              fieldsV1: { 'f:spec': { 'f:template': { 'f:spec': { 'f:nodeSelector': { 'f:disk': {} } } } } },
            },
          ],
        },
      };
      const error = failure(() => apply(live, config({ template: { spec: { nodeSelector: { disk: 'ssd', zone: 'b' } } } }), 'beta'));
      expect(error.status.message).toBe('Apply failed with 1 conflict: conflict with "alpha": .spec.template.spec.nodeSelector');
    });
  });
});
