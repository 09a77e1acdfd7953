import { JsonObject } from '../patch';
import type { ManagedFieldsEntry } from '../meta/managed-fields-entry';
import { UpdateManagedFieldsOptions, applyPatch, updateManagedFields } from './index';
import { deploymentSchema, deploymentZeroValue } from './testing/deployment-schema';
import { entriesOf, entryOf, managersOf, ownedBy } from './testing/ownership-helpers';

const T0 = new Date('2024-05-01T10:00:00Z');
const T1 = new Date('2024-05-01T10:05:00Z');
const T2 = new Date('2024-05-01T10:10:00Z');

/** A write as the API server performs it: compute the entries, store them in the object. */
function write(live: JsonObject | undefined, updated: JsonObject, manager: string, extra: Partial<UpdateManagedFieldsOptions> = {}): JsonObject {
  const managedFields = updateManagedFields({
    live,
    updated,
    manager,
    apiVersion: 'apps/v1',
    schema: deploymentSchema,
    now: T0,
    resetFields: [['status']],
    ...extra,
  });
  return withEntries(updated, managedFields);
}

function withEntries(object: JsonObject, managedFields: ManagedFieldsEntry[]): JsonObject {
  const metadata = { ...(object.metadata as JsonObject) };
  if (managedFields.length > 0) metadata.managedFields = managedFields as unknown as JsonObject[];
  else delete metadata.managedFields;
  return { ...object, metadata };
}

/** The object with some spec fields changed, keeping what it carries (managedFields included). */
function edit(object: JsonObject, spec: JsonObject, metadata: JsonObject = {}): JsonObject {
  return { ...object, metadata: { ...(object.metadata as JsonObject), ...metadata }, spec: { ...(object.spec as JsonObject), ...spec } };
}

function deployment(spec: JsonObject): JsonObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec };
}

const defaulted: JsonObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'nginx',
    namespace: 'default',
    uid: 'u-1',
    resourceVersion: '1',
    generation: 1,
    creationTimestamp: '2024-05-01T10:00:00Z',
    labels: { app: 'nginx' },
  },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'nginx' } },
    template: {
      metadata: { labels: { app: 'nginx' } },
      spec: {
        containers: [
          {
            name: 'nginx',
            image: 'nginx',
            imagePullPolicy: 'Always',
            resources: {},
            terminationMessagePath: '/dev/termination-log',
            terminationMessagePolicy: 'File',
          },
        ],
        restartPolicy: 'Always',
        terminationGracePeriodSeconds: 30,
        dnsPolicy: 'ClusterFirst',
        securityContext: {},
        schedulerName: 'default-scheduler',
      },
    },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
    revisionHistoryLimit: 10,
    progressDeadlineSeconds: 600,
  },
  status: {},
};

describe('updateManagedFields', () => {
  describe('a create', () => {
    it('writes the Update entry Kubernetes writes for a created Deployment', () => {
      const [entry, ...others] = updateManagedFields({
        live: undefined,
        updated: defaulted,
        manager: 'kubectl-create',
        apiVersion: 'apps/v1',
        schema: deploymentSchema,
        now: T0,
        resetFields: [['status']],
        emptyObject: deploymentZeroValue,
      });
      expect(others).toEqual([]);
      expect(JSON.stringify(entry)).toBe(
        JSON.stringify({
          manager: 'kubectl-create',
          operation: 'Update',
          apiVersion: 'apps/v1',
          time: '2024-05-01T10:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
            'f:spec': {
              'f:progressDeadlineSeconds': {},
              'f:replicas': {},
              'f:revisionHistoryLimit': {},
              'f:selector': {},
              'f:strategy': { 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} }, 'f:type': {} },
              'f:template': {
                'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
                'f:spec': {
                  'f:containers': {
                    'k:{"name":"nginx"}': {
                      '.': {},
                      'f:image': {},
                      'f:imagePullPolicy': {},
                      'f:name': {},
                      'f:resources': {},
                      'f:terminationMessagePath': {},
                      'f:terminationMessagePolicy': {},
                    },
                  },
                  'f:dnsPolicy': {},
                  'f:restartPolicy': {},
                  'f:schedulerName': {},
                  'f:securityContext': {},
                  'f:terminationGracePeriodSeconds': {},
                },
              },
            },
          },
        }),
      );
    });

    it('marks every created map and struct with "." when compared with an empty object', () => {
      const created = write(undefined, deployment({ replicas: 1, strategy: { type: 'Recreate' } }), 'creator');
      expect(entryOf(created, 'creator').fieldsV1).toEqual({
        'f:spec': { '.': {}, 'f:replicas': {}, 'f:strategy': { '.': {}, 'f:type': {} } },
      });
    });
  });

  describe('later writes', () => {
    const created = (): JsonObject => write(undefined, deployment({ replicas: 1, minReadySeconds: 0 }), 'kubectl-create');

    it('moves a changed field to the writer and keeps the rest with its first owner', () => {
      const edited = write(created(), edit(created(), { replicas: 3 }), 'kubectl-edit', { now: T1 });
      expect(ownedBy(edited, 'kubectl-create')).toEqual(['.spec', '.spec.minReadySeconds']);
      expect(ownedBy(edited, 'kubectl-edit')).toEqual(['.spec.replicas']);
      expect(entryOf(edited, 'kubectl-edit').time).toBe('2024-05-01T10:05:00Z');
    });

    it('takes fields from an applier without conflict (non-apply writes never conflict)', () => {
      const applied = applyPatch({
        live: undefined,
        applied: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 2, paused: false } },
        manager: 'kubectl',
        force: false,
        apiVersion: 'apps/v1',
        schema: deploymentSchema,
        now: T0,
      }).object;
      const scaled = write(applied, edit(applied, { replicas: 5 }), 'autoscaler', { now: T1 });
      expect(ownedBy(scaled, 'kubectl')).toEqual(['.spec.paused']);
      expect(ownedBy(scaled, 'autoscaler')).toEqual(['.spec.replicas']);
      expect(managersOf(scaled)).toEqual(['kubectl/Apply', 'autoscaler/Update']);
    });

    it('removes deleted fields from every manager and drops managers left with nothing', () => {
      const edited = write(created(), edit(created(), { replicas: 3 }), 'kubectl-edit', { now: T1 });
      const { replicas, ...rest } = edited.spec as JsonObject;
      void replicas;
      const trimmed = write(edited, { ...edited, spec: rest }, 'kubectl-replace', { now: T2 });
      expect(managersOf(trimmed)).toEqual(['kubectl-create/Update']);
      expect(ownedBy(trimmed, 'kubectl-create')).toEqual(['.spec', '.spec.minReadySeconds']);
    });

    it('keeps one entry per manager, apiVersion and subresource, accumulating fields', () => {
      let object = created();
      object = write(object, edit(object, { replicas: 2 }), 'ctl', { now: T1 });
      object = write(object, edit(object, { paused: true }), 'ctl', { now: T2 });
      object = write(object, edit(object, { minReadySeconds: 4 }), 'ctl', { now: T2, apiVersion: 'apps/v1beta2' });
      object = write(object, { ...object, status: { replicas: 2 } }, 'ctl', { now: T2, subresource: 'status', resetFields: [['spec']] });
      expect(
        entriesOf(object).map((e) => [
          e.manager,
          e.apiVersion,
          e.subresource ?? '',
          ownedBy({ metadata: { managedFields: [e as unknown as JsonObject] } }, e.manager ?? ''),
        ]),
      ).toEqual([
        ['kubectl-create', 'apps/v1', '', ['.spec']],
        ['ctl', 'apps/v1', '', ['.spec.paused', '.spec.replicas']],
        ['ctl', 'apps/v1', 'status', ['.status', '.status.replicas']],
        ['ctl', 'apps/v1beta2', '', ['.spec.minReadySeconds']],
      ]);
    });

    it('leaves the entry and its time alone when the write changes nothing it tracks', () => {
      const edited = write(created(), edit(created(), { replicas: 3 }), 'kubectl-edit', { now: T1 });
      const again = write(edited, edit(edited, {}, { resourceVersion: '9', generation: 2 }), 'kubectl-edit', { now: T2 });
      expect(entriesOf(again)).toEqual(entriesOf(edited));
    });

    it('copes with list items it cannot key: duplicates and missing keys are left untracked', () => {
      const live = created();
      const odd = edit(live, {
        template: {
          spec: {
            containers: [
              {
                name: 'a',
                env: [
                  { name: 'X', value: '1' },
                  { name: 'X', value: '2' },
                ],
              },
              { image: 'nameless' },
            ],
          },
        },
      });
      const result = write(live, odd, 'kubectl-edit', { now: T1 });
      expect(ownedBy(result, 'kubectl-edit')).toEqual([
        '.spec.template',
        '.spec.template.spec',
        '.spec.template.spec.containers',
        '.spec.template.spec.containers[name="a"]',
        '.spec.template.spec.containers[name="a"].env',
        '.spec.template.spec.containers[name="a"].name',
        '.spec.template.spec.containers[name="a"].env[name="X"]',
        '.spec.template.spec.containers[name="a"].env[name="X"].name',
        '.spec.template.spec.containers[name="a"].env[name="X"].value',
      ]);
    });

    it('does not record status written through the main resource', () => {
      const withStatus = write(created(), { ...created(), status: { replicas: 1 } }, 'kubectl-edit', { now: T1 });
      expect(managersOf(withStatus)).toEqual(['kubectl-create/Update']);
    });

    it('orders entries as Kubernetes does: appliers first, then the oldest update', () => {
      let object = write(undefined, deployment({ replicas: 1 }), 'zeta', { now: T0 });
      object = write(object, edit(object, { paused: true }), 'alpha', { now: T2 });
      object = applyPatch({
        live: object,
        applied: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { minReadySeconds: 1 } },
        manager: 'mid',
        force: false,
        apiVersion: 'apps/v1',
        schema: deploymentSchema,
        now: T1,
      }).object;
      expect(managersOf(object)).toEqual(['mid/Apply', 'zeta/Update', 'alpha/Update']);
    });

    it('folds the oldest of more than ten updaters into ancient-changes', () => {
      let object = created();
      for (let i = 0; i < 11; i++) {
        object = write(object, edit(object, { [`f${i}`]: i }), `writer-${String(i).padStart(2, '0')}`, { now: new Date(T1.getTime() + i * 1000) });
      }
      const managers = entriesOf(object).map((e) => e.manager);
      expect(managers).toHaveLength(10);
      expect(managers[0]).toBe('ancient-changes');
      // Twelve updaters: the creator and the two oldest writers share the bucket.
      expect(ownedBy(object, 'ancient-changes')).toEqual(['.spec', '.spec.f0', '.spec.f1', '.spec.minReadySeconds', '.spec.replicas']);
    });
  });

  describe('managedFields written by the request (rule 11)', () => {
    const owned = (): JsonObject =>
      write(
        write(undefined, deployment({ replicas: 1 }), 'creator'),
        edit(write(undefined, deployment({ replicas: 1 }), 'creator'), { paused: true }),
        'editor',
        { now: T1 },
      );

    it('clears them with a single empty entry', () => {
      const live = owned();
      expect(
        updateManagedFields({
          live,
          updated: edit(live, {}, { managedFields: [{}] }),
          manager: 'stripper',
          apiVersion: 'apps/v1',
          schema: deploymentSchema,
          now: T2,
        }),
      ).toEqual([]);
    });

    it('clears them first when combined with other changes: the writer owns only what it changed', () => {
      const live = owned();
      const result = write(live, edit(live, { replicas: 4 }, { managedFields: [{}] }), 'stripper', { now: T2 });
      expect(managersOf(result)).toEqual(['stripper/Update']);
      expect(ownedBy(result, 'stripper')).toEqual(['.spec.replicas']);
    });

    it('keeps the live entries when the request sends an empty list or none', () => {
      const live = owned();
      expect(write(live, edit(live, {}, { managedFields: [] }), 'other', { now: T2 })).toEqual(live);
      const { managedFields, ...bare } = live.metadata as JsonObject;
      void managedFields;
      expect(write(live, { ...live, metadata: bare }, 'other', { now: T2 })).toEqual(live);
    });

    it('keeps entries the request carries unchanged, and honours edited ones', () => {
      const live = owned();
      expect(write(live, edit(live, {}), 'other', { now: T2 })).toEqual(live);
      const onlyEditor = entriesOf(live).filter((e) => e.manager === 'editor') as unknown as JsonObject[];
      const edited = write(live, edit(live, {}, { managedFields: onlyEditor }), 'other', { now: T2 });
      expect(managersOf(edited)).toEqual(['editor/Update']);
    });

    it('stops tracking an existing object without entries until it is applied to', () => {
      const live = write(owned(), edit(owned(), {}, { managedFields: [{}] }), 'stripper');
      expect(managersOf(live)).toEqual([]);
      expect(managersOf(write(live, edit(live, { replicas: 9 }), 'editor', { now: T2 }))).toEqual([]);
    });

    it('ignores entries sent to a subresource', () => {
      const live = owned();
      const result = write(live, { ...edit(live, {}, { managedFields: [{}] }), status: { replicas: 1 } }, 'kubelet', {
        subresource: 'status',
        resetFields: [['spec']],
        now: T2,
      });
      expect(managersOf(result)).toEqual(['creator/Update', 'editor/Update', 'kubelet/Update']);
    });
  });
});
