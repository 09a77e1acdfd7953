import { isRecord } from '@svc/machinery';
import { ReplicaSetSchema, type ReplicaSet } from '../../kinds/apps/replica-set';
import { ageColumn, column, nameColumn } from '../table';
import { as, defineKind } from './define-kind';
import { defaultPodSpec, validatePodSpec } from './pod-spec-rules';
import { containerCells, selectorCell, validateSelectorAndTemplate, immutableSelector } from './workload-rules';

export const replicaSetDefinition = defineKind({
  group: 'apps',
  version: 'v1',
  kind: 'ReplicaSet',
  resource: 'replicasets',
  namespaced: true,
  shortNames: ['rs'],
  categories: ['all'],
  subresources: {
    status: true,
    scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.spec.selector' },
  },
  // rsStrategy.PrepareForCreate starts with an empty status; `replicas` has no omitempty: `status: {replicas: 0}`.
  strategy: {
    validateUpdate: immutableSelector,
    podSpec: { path: ['spec', 'template', 'spec'], template: true },
    prepareForCreate(rs) {
      rs.status = { replicas: 0 };
    },
  },
  schema: ReplicaSetSchema,
  fieldSelectors: {
    'status.replicas': (o) => String(as<ReplicaSet>(o).status?.replicas ?? 0),
  },
  columns: [
    nameColumn(),
    column('Desired', 'integer', (o) => as<ReplicaSet>(o).spec?.replicas ?? 0, { description: 'Number of desired pods.' }),
    column('Current', 'integer', (o) => as<ReplicaSet>(o).status?.replicas ?? 0, { description: 'Number of actual replicas.' }),
    column('Ready', 'integer', (o) => as<ReplicaSet>(o).status?.readyReplicas ?? 0, { description: 'Number of ready replicas.' }),
    ageColumn(),
    column('Containers', 'string', (o) => containerCells(as<ReplicaSet>(o).spec?.template?.spec?.containers).names, {
      priority: 1,
      description: 'Names of each container in the template.',
    }),
    column('Images', 'string', (o) => containerCells(as<ReplicaSet>(o).spec?.template?.spec?.containers).images, {
      priority: 1,
      description: 'Images referenced by each container in the template.',
    }),
    column('Selector', 'string', (o) => selectorCell(as<ReplicaSet>(o).spec?.selector), { priority: 1, description: 'Label selector for pods.' }),
  ],
  defaultHooks: [(o) => defaultPodSpec(isRecord(o.spec) && isRecord(o.spec.template) ? o.spec.template.spec : undefined)],
  validationRules: [
    validateSelectorAndTemplate,
    (o) => validatePodSpec(isRecord(o.spec) && isRecord(o.spec.template) ? o.spec.template.spec : undefined, 'spec.template.spec'),
  ],
});
