import { isRecord } from '@svc/machinery';
import { ReplicationControllerSchema, type ReplicationController } from '../../kinds/core/replication-controller';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject } from '../kind-definition';
import { ageColumn, column, nameColumn } from '../table';
import { as, defineKind, formatLabels } from './define-kind';
import { defaultPodSpec, validatePodSpec } from './pod-spec-rules';
import { containerCells } from './workload-rules';

/**
 * SetDefaults_ReplicationController (pkg/apis/core/v1/defaults.go): the selector, and the object's
 * labels, default to the template's labels.
 */
function defaultReplicationController(rc: ApiObject): void {
  const spec = isRecord(rc.spec) ? rc.spec : undefined;
  const template = spec && isRecord(spec.template) ? spec.template : undefined;
  const labels = template && isRecord(template.metadata) && isRecord(template.metadata.labels) ? template.metadata.labels : undefined;
  if (spec && labels) {
    if (!isRecord(spec.selector) || Object.keys(spec.selector).length === 0) spec.selector = { ...labels };
    const meta = (rc.metadata ??= {});
    if (!meta.labels || Object.keys(meta.labels).length === 0) meta.labels = { ...(labels as Record<string, string>) };
  }
  defaultPodSpec(template?.spec);
}

/** ValidateReplicationControllerSpec: a non-empty selector, a template whose labels it selects, restartPolicy Always. */
function validateReplicationController(rc: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = isRecord(rc.spec) ? rc.spec : {};
  const selector = isRecord(spec.selector) ? (spec.selector as Record<string, string>) : {};
  if (Object.keys(selector).length === 0) errors.push(fieldErrors.required('spec.selector'));
  if (!isRecord(spec.template)) {
    errors.push(fieldErrors.required('spec.template'));
    return errors;
  }
  const template = spec.template;
  const labels = isRecord(template.metadata) && isRecord(template.metadata.labels) ? (template.metadata.labels as Record<string, string>) : {};
  if (Object.keys(selector).length > 0 && !Object.entries(selector).every(([k, v]) => labels[k] === v)) {
    errors.push(fieldErrors.invalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
  }
  const podSpec = isRecord(template.spec) ? template.spec : undefined;
  if (podSpec === undefined) errors.push(fieldErrors.required('spec.template.spec'));
  else if (podSpec.restartPolicy !== undefined && podSpec.restartPolicy !== 'Always') {
    errors.push(fieldErrors.notSupported('spec.template.spec.restartPolicy', podSpec.restartPolicy, ['Always']));
  }
  errors.push(...validatePodSpec(podSpec, 'spec.template.spec'));
  return errors;
}

/** Kubernetes' ReplicationController (core/v1), kept by the controller manager's replication controller. */
export const replicationControllerDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'ReplicationController',
  resource: 'replicationcontrollers',
  namespaced: true,
  shortNames: ['rc'],
  categories: ['all'],
  subresources: {
    status: true,
    scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.spec.selector' },
  },
  // rcStrategy: generation kept, and a new controller starts with an empty status (`replicas` is always serialized).
  strategy: {
    returnDeletedObject: false,
    podSpec: { path: ['spec', 'template', 'spec'], template: true },
    prepareForCreate(rc) {
      rc.status = { replicas: 0 };
    },
  },
  schema: ReplicationControllerSchema,
  columns: [
    nameColumn(),
    column('Desired', 'integer', (o) => as<ReplicationController>(o).spec?.replicas ?? 0, { description: 'Number of desired pods.' }),
    column('Current', 'integer', (o) => as<ReplicationController>(o).status?.replicas ?? 0, { description: 'Number of actual replicas.' }),
    column('Ready', 'integer', (o) => as<ReplicationController>(o).status?.readyReplicas ?? 0, { description: 'Number of ready replicas.' }),
    ageColumn(),
    column('Containers', 'string', (o) => containerCells(as<ReplicationController>(o).spec?.template?.spec?.containers).names, {
      priority: 1,
      description: 'Names of each container in the template.',
    }),
    column('Images', 'string', (o) => containerCells(as<ReplicationController>(o).spec?.template?.spec?.containers).images, {
      priority: 1,
      description: 'Images referenced by each container in the template.',
    }),
    column('Selector', 'string', (o) => formatLabels(as<ReplicationController>(o).spec?.selector), { priority: 1, description: 'Label selector for pods.' }),
  ],
  defaultHooks: [defaultReplicationController],
  validationRules: [validateReplicationController],
});
