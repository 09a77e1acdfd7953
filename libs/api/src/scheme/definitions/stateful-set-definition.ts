import { isRecord, jsonEqual } from '@svc/machinery';
import { PersistentVolumeClaimRetentionPolicyTypes, StatefulSetSchema, type StatefulSet } from '../../kinds/apps/stateful-set';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject } from '../kind-definition';
import { ageColumn, column, nameColumn } from '../table';
import { as, defineKind, records } from './define-kind';
import { defaultPodSpec } from './pod-spec-rules';
import { containerCells, percentValue, selectorQuery, templateErrors } from './workload-rules';

function specOf(obj: ApiObject): Record<string, unknown> {
  return isRecord(obj.spec) ? obj.spec : {};
}

/** SetDefaults_StatefulSet (pkg/apis/apps/v1/defaults.go); replicas, podManagementPolicy and revisionHistoryLimit come from the schema. */
function defaultStatefulSet(obj: ApiObject): void {
  const spec = obj.spec;
  if (!isRecord(spec)) return;
  const strategy = (spec.updateStrategy = isRecord(spec.updateStrategy) ? spec.updateStrategy : {});
  if (strategy.type === undefined || strategy.type === '') {
    strategy.type = 'RollingUpdate';
    strategy.rollingUpdate ??= {};
  }
  if (strategy.type === 'RollingUpdate' && isRecord(strategy.rollingUpdate)) strategy.rollingUpdate.partition ??= 0;
  // StatefulSetAutoDeletePVC is on in 1.32: claims are kept unless the policy says otherwise.
  const retention = (spec.persistentVolumeClaimRetentionPolicy = isRecord(spec.persistentVolumeClaimRetentionPolicy)
    ? spec.persistentVolumeClaimRetentionPolicy
    : {});
  if (!retention.whenDeleted) retention.whenDeleted = 'Retain';
  if (!retention.whenScaled) retention.whenScaled = 'Retain';
  // Kubernetes' apps/v1 conversion serves every claim template as a v1 PersistentVolumeClaim, whatever was written.
  for (const claim of records(spec.volumeClaimTemplates)) {
    claim.apiVersion = 'v1';
    claim.kind = 'PersistentVolumeClaim';
  }
  defaultPodSpec(isRecord(spec.template) ? spec.template.spec : undefined);
}

/**
 * dropStatefulSetDisabledFields: rollingUpdate.maxUnavailable is behind the MaxUnavailableStatefulSet
 * feature, alpha and off in Kubernetes 1.32, so it is dropped unless the stored object already has it.
 */
function dropMaxUnavailable(obj: ApiObject, current: ApiObject | undefined): void {
  const rollingUpdate = (o: ApiObject | undefined) => {
    const strategy = o && isRecord(o.spec) && isRecord(o.spec.updateStrategy) ? o.spec.updateStrategy : undefined;
    return strategy && isRecord(strategy.rollingUpdate) ? strategy.rollingUpdate : undefined;
  };
  const inUse = rollingUpdate(current)?.maxUnavailable !== undefined;
  const incoming = rollingUpdate(obj);
  if (incoming && !inUse) delete incoming.maxUnavailable;
}

/** validateRollingUpdateStatefulSet: partition from the schema; maxUnavailable when given. */
function rollingUpdateErrors(rollingUpdate: Record<string, unknown>, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const maxUnavailable = rollingUpdate.maxUnavailable;
  if (maxUnavailable === undefined) return errors;
  const value = percentValue(maxUnavailable) ?? (typeof maxUnavailable === 'number' ? maxUnavailable : undefined);
  if (value === 0) errors.push(fieldErrors.invalid(`${path}.maxUnavailable`, maxUnavailable, 'cannot be 0'));
  const percent = percentValue(maxUnavailable);
  if (percent !== undefined && percent > 100) errors.push(fieldErrors.invalid(`${path}.maxUnavailable`, maxUnavailable, 'must not be greater than 100%'));
  return errors;
}

/**
 * ValidateStatefulSetSpec. Like Kubernetes, the pod template is checked for its selector, labels,
 * annotations and restart policy only: its containers mount the volumes of volumeClaimTemplates, which
 * the pod spec alone does not declare.
 */
function validateStatefulSet(obj: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = specOf(obj);
  const policy = spec.podManagementPolicy;
  if (policy === '' || policy === undefined) errors.push(fieldErrors.required('spec.podManagementPolicy'));
  else if (policy !== 'OrderedReady' && policy !== 'Parallel') {
    errors.push(fieldErrors.invalid('spec.podManagementPolicy', policy, "must be 'OrderedReady' or 'Parallel'"));
  }
  const strategy = isRecord(spec.updateStrategy) ? spec.updateStrategy : {};
  switch (strategy.type) {
    case undefined:
    case '':
      errors.push(fieldErrors.required('spec.updateStrategy'));
      break;
    case 'OnDelete':
      if (strategy.rollingUpdate !== undefined) {
        errors.push(fieldErrors.invalid('spec.updateStrategy.rollingUpdate', strategy.rollingUpdate, "only allowed for updateStrategy 'RollingUpdate'"));
      }
      break;
    case 'RollingUpdate':
      if (isRecord(strategy.rollingUpdate)) errors.push(...rollingUpdateErrors(strategy.rollingUpdate, 'spec.updateStrategy.rollingUpdate'));
      break;
    default:
      errors.push(fieldErrors.invalid('spec.updateStrategy', strategy, "must be 'RollingUpdate' or 'OnDelete'"));
  }
  const retention = isRecord(spec.persistentVolumeClaimRetentionPolicy) ? spec.persistentVolumeClaimRetentionPolicy : undefined;
  for (const key of ['whenDeleted', 'whenScaled'] as const) {
    if (retention && !(PersistentVolumeClaimRetentionPolicyTypes as readonly unknown[]).includes(retention[key])) {
      errors.push(
        fieldErrors.notSupported(`spec.persistentVolumeClaimRetentionPolicy.${key}`, retention[key] ?? '', PersistentVolumeClaimRetentionPolicyTypes),
      );
    }
  }
  if (isRecord(spec.selector)) {
    const query = selectorQuery(spec.selector);
    if (query?.isEmpty()) errors.push(fieldErrors.invalid('spec.selector', spec.selector, 'empty selector is invalid for statefulset'));
    const template = isRecord(spec.template) ? spec.template : {};
    const labels = isRecord(template.metadata) && isRecord(template.metadata.labels) ? template.metadata.labels : {};
    if (query && !query.isEmpty() && !query.matches(labels as Record<string, string>)) {
      errors.push(fieldErrors.invalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
    }
    errors.push(...templateErrors(template, 'spec.template'));
  }
  const podSpec = isRecord(spec.template) && isRecord(spec.template.spec) ? spec.template.spec : {};
  if (podSpec.restartPolicy !== 'Always') errors.push(fieldErrors.notSupported('spec.template.spec.restartPolicy', podSpec.restartPolicy ?? '', ['Always']));
  if (podSpec.activeDeadlineSeconds !== undefined) {
    errors.push(fieldErrors.forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in StatefulSet is not Supported'));
  }
  return errors;
}

/** The fields of a StatefulSet's spec an update may change; anything else is forbidden. */
const MUTABLE_SPEC_FIELDS = ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];

/** ValidateStatefulSetUpdate. */
function validateStatefulSetUpdate(obj: ApiObject, current: ApiObject): FieldError[] {
  const strip = (spec: Record<string, unknown>) => Object.fromEntries(Object.entries(spec).filter(([key]) => !MUTABLE_SPEC_FIELDS.includes(key)));
  if (jsonEqual(strip(specOf(obj)), strip(specOf(current)))) return [];
  return [
    fieldErrors.forbidden(
      'spec',
      "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ),
  ];
}

/** ValidateStatefulSetStatusUpdate: counts within the number of replicas, a collision count that only grows. */
function validateStatefulSetStatus(obj: ApiObject, current: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  const status = isRecord(obj.status) ? obj.status : {};
  const n = (key: string) => (typeof status[key] === 'number' ? status[key] : 0);
  const beyond = 'cannot be greater than status.replicas';
  for (const key of ['readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas']) {
    if (n(key) > n('replicas')) errors.push(fieldErrors.invalid(`status.${key}`, n(key), beyond));
  }
  if (n('availableReplicas') > n('readyReplicas')) {
    errors.push(fieldErrors.invalid('status.availableReplicas', n('availableReplicas'), 'cannot be greater than status.readyReplicas'));
  }
  errors.push(...collisionCountDecrement(obj, current));
  return errors;
}

/** IsDecremented of status.collisionCount: a hash salt that went back could name a revision twice. */
export function collisionCountDecrement(obj: ApiObject, current: ApiObject): FieldError[] {
  const count = (o: ApiObject) => (isRecord(o.status) && typeof o.status.collisionCount === 'number' ? o.status.collisionCount : undefined);
  const now = count(obj);
  const before = count(current);
  if (before === undefined) return [];
  return now === undefined || now < before ? [fieldErrors.invalid('status.collisionCount', now ?? 0, 'cannot be decremented')] : [];
}

/** Warnings Kubernetes gives for a StatefulSet (WarningsOnCreate/Update). */
function statefulSetWarnings(obj: ApiObject): string[] {
  const limit = specOf(obj).revisionHistoryLimit;
  return typeof limit === 'number' && limit < 0
    ? ['spec.revisionHistoryLimit: a negative value retains all historical revisions; a value >= 0 is recommended']
    : [];
}

/** Kubernetes' StatefulSet (apps/v1), run by the statefulset controller. */
export const statefulSetDefinition = defineKind({
  group: 'apps',
  version: 'v1',
  kind: 'StatefulSet',
  resource: 'statefulsets',
  namespaced: true,
  shortNames: ['sts'],
  categories: ['all'],
  subresources: {
    status: true,
    scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.spec.selector' },
  },
  // statefulSetStrategy.PrepareForCreate: an empty status, whose replicas and availableReplicas Go always writes.
  strategy: {
    podSpec: { path: ['spec', 'template', 'spec'], template: true },
    prepareForCreate(sts) {
      dropMaxUnavailable(sts, undefined);
      sts.status = { replicas: 0, availableReplicas: 0 };
    },
    prepareForUpdate: dropMaxUnavailable,
    warnings: statefulSetWarnings,
    validateUpdate: validateStatefulSetUpdate,
    status: { validateUpdate: validateStatefulSetStatus },
  },
  schema: StatefulSetSchema,
  columns: [
    nameColumn(),
    column('Ready', 'string', (o) => `${as<StatefulSet>(o).status?.readyReplicas ?? 0}/${as<StatefulSet>(o).spec?.replicas ?? 0}`, {
      description: 'Number of the pod with ready state',
    }),
    ageColumn(),
    column('Containers', 'string', (o) => containerCells(as<StatefulSet>(o).spec?.template?.spec?.containers).names, {
      priority: 1,
      description: 'Names of each container in the template.',
    }),
    column('Images', 'string', (o) => containerCells(as<StatefulSet>(o).spec?.template?.spec?.containers).images, {
      priority: 1,
      description: 'Images referenced by each container in the template.',
    }),
  ],
  defaultHooks: [defaultStatefulSet],
  validationRules: [validateStatefulSet],
});
