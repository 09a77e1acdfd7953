import { isRecord } from '@svc/machinery';
import { DeploymentSchema, type Deployment } from '../../kinds/apps/deployment';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject } from '../kind-definition';
import { ageColumn, column, nameColumn } from '../table';
import { as, defineKind } from './define-kind';
import { defaultPodSpec, validatePodSpec } from './pod-spec-rules';
import { containerCells, percentValue, selectorCell, validateSelectorAndTemplate, immutableSelector } from './workload-rules';

function defaultStrategy(obj: ApiObject): void {
  const spec = obj.spec;
  if (!isRecord(spec)) return;
  if (!isRecord(spec.strategy)) spec.strategy = { type: 'RollingUpdate' };
  const strategy = spec.strategy as Record<string, unknown>;
  strategy.type ??= 'RollingUpdate';
  if (strategy.type !== 'RollingUpdate') return;
  if (!isRecord(strategy.rollingUpdate)) strategy.rollingUpdate = {};
  const ru = strategy.rollingUpdate as Record<string, unknown>;
  ru.maxUnavailable ??= '25%';
  ru.maxSurge ??= '25%';
}

function isZero(value: unknown): boolean {
  return value === 0 || value === '0%';
}

function validateStrategy(obj: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = obj.spec;
  if (!isRecord(spec) || !isRecord(spec.strategy)) return errors;
  const strategy = spec.strategy;
  const ru = strategy.rollingUpdate;
  if (strategy.type === 'Recreate' && ru !== undefined) {
    errors.push(fieldErrors.forbidden('spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'"));
  }
  if (strategy.type === 'RollingUpdate' && isRecord(ru)) {
    if (isZero(ru.maxUnavailable) && isZero(ru.maxSurge)) {
      errors.push(fieldErrors.invalid('spec.strategy.rollingUpdate.maxUnavailable', ru.maxUnavailable, 'may not be 0 when `maxSurge` is 0'));
    }
    const p = percentValue(ru.maxUnavailable);
    if (p !== undefined && p > 100) {
      errors.push(fieldErrors.invalid('spec.strategy.rollingUpdate.maxUnavailable', ru.maxUnavailable, 'must not be greater than 100%'));
    }
  }
  return errors;
}

export const deploymentDefinition = defineKind({
  group: 'apps',
  version: 'v1',
  kind: 'Deployment',
  resource: 'deployments',
  namespaced: true,
  shortNames: ['deploy'],
  categories: ['all'],
  subresources: {
    status: true,
    scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.spec.selector' },
  },
  // apps/v1 selectors are immutable; a status write resets spec and labels and takes the annotations
  // (the controller's revision), as Kubernetes' deploymentStatusStrategy.
  // deploymentStrategy.PrepareForCreate starts with an empty status, which the Go struct serializes as `{}`.
  strategy: {
    validateUpdate: immutableSelector,
    status: { resetFields: [['spec'], ['metadata', 'labels']] },
    podSpec: { path: ['spec', 'template', 'spec'], template: true },
    prepareForCreate(deployment) {
      deployment.status = {};
    },
  },
  schema: DeploymentSchema,
  columns: [
    nameColumn(),
    column('Ready', 'string', (o) => `${as<Deployment>(o).status?.readyReplicas ?? 0}/${as<Deployment>(o).spec?.replicas ?? 0}`, {
      description: 'Number of the pod with ready state',
    }),
    column('Up-to-date', 'integer', (o) => as<Deployment>(o).status?.updatedReplicas ?? 0, {
      description: 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
    }),
    column('Available', 'integer', (o) => as<Deployment>(o).status?.availableReplicas ?? 0, {
      description: 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
    }),
    ageColumn(),
    column('Containers', 'string', (o) => containerCells(as<Deployment>(o).spec?.template?.spec?.containers).names, {
      priority: 1,
      description: 'Names of each container in the template.',
    }),
    column('Images', 'string', (o) => containerCells(as<Deployment>(o).spec?.template?.spec?.containers).images, {
      priority: 1,
      description: 'Images referenced by each container in the template.',
    }),
    column('Selector', 'string', (o) => selectorCell(as<Deployment>(o).spec?.selector), {
      priority: 1,
      description: 'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.',
    }),
  ],
  defaultHooks: [defaultStrategy, (o) => defaultPodSpec(isRecord(o.spec) && isRecord(o.spec.template) ? o.spec.template.spec : undefined)],
  validationRules: [
    validateSelectorAndTemplate,
    validateStrategy,
    (o) => validatePodSpec(isRecord(o.spec) && isRecord(o.spec.template) ? o.spec.template.spec : undefined, 'spec.template.spec'),
  ],
});
