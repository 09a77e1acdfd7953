import { isRecord, jsonEqual } from '@svc/machinery';
import { DAEMON_SET_TEMPLATE_GENERATION_ANNOTATION, DaemonSetSchema, DaemonSetUpdateStrategyTypes, type DaemonSet } from '../../kinds/apps/daemon-set';
import { compileKind } from '../../schema/compile-kind';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject } from '../kind-definition';
import { ageColumn, column, nameColumn } from '../table';
import { as, defineKind, formatLabels } from './define-kind';
import { defaultPodSpec, validatePodSpec } from './pod-spec-rules';
import { collisionCountDecrement } from './stateful-set-definition';
import { containerCells, immutableSelector, percentValue, selectorCell, selectorQuery, templateErrors } from './workload-rules';

function specOf(obj: ApiObject | undefined): Record<string, unknown> {
  return obj && isRecord(obj.spec) ? obj.spec : {};
}

/** SetDefaults_DaemonSet (pkg/apis/apps/v1/defaults.go); revisionHistoryLimit comes from the schema. */
function defaultDaemonSet(obj: ApiObject): void {
  const spec = obj.spec;
  if (!isRecord(spec)) return;
  const strategy = (spec.updateStrategy = isRecord(spec.updateStrategy) ? spec.updateStrategy : {});
  if (strategy.type === undefined || strategy.type === '') strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const rollingUpdate = (strategy.rollingUpdate = isRecord(strategy.rollingUpdate) ? strategy.rollingUpdate : {});
    rollingUpdate.maxUnavailable ??= 1;
    rollingUpdate.maxSurge ??= 0;
  }
  defaultPodSpec(isRecord(spec.template) ? spec.template.spec : undefined);
}

/** An int-or-percent's number: the percentage for a percent, the integer otherwise (getIntOrPercentValue). */
function intOrPercentValue(value: unknown): number {
  return percentValue(value) ?? (typeof value === 'number' ? value : 0);
}

/** ValidateDaemonSetUpdateStrategy. */
function updateStrategyErrors(strategy: Record<string, unknown>): FieldError[] {
  const path = 'spec.updateStrategy';
  switch (strategy.type) {
    case 'OnDelete':
      return [];
    case 'RollingUpdate': {
      if (!isRecord(strategy.rollingUpdate)) return [fieldErrors.required(`${path}.rollingUpdate`)];
      const errors: FieldError[] = [];
      const { maxUnavailable, maxSurge } = strategy.rollingUpdate;
      for (const [key, value] of [
        ['maxUnavailable', maxUnavailable],
        ['maxSurge', maxSurge],
      ] as const) {
        const percent = percentValue(value);
        if (percent !== undefined && percent > 100) errors.push(fieldErrors.invalid(`${path}.rollingUpdate.${key}`, value, 'must not be greater than 100%'));
      }
      const hasUnavailable = intOrPercentValue(maxUnavailable) !== 0;
      const hasSurge = intOrPercentValue(maxSurge) !== 0;
      if (hasUnavailable && hasSurge) {
        errors.push(fieldErrors.invalid(`${path}.rollingUpdate.maxSurge`, maxSurge, 'may not be set when maxUnavailable is non-zero'));
      } else if (!hasUnavailable && !hasSurge) {
        errors.push(fieldErrors.required(`${path}.rollingUpdate.maxUnavailable`, 'cannot be 0 when maxSurge is 0'));
      }
      return errors;
    }
    default:
      return [fieldErrors.notSupported(path, strategy, DaemonSetUpdateStrategyTypes)];
  }
}

/** ValidateDaemonSetSpec. */
function validateDaemonSet(obj: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = specOf(obj);
  const template = isRecord(spec.template) ? spec.template : {};
  const labels = isRecord(template.metadata) && isRecord(template.metadata.labels) ? (template.metadata.labels as Record<string, string>) : {};
  const query = selectorQuery(spec.selector);
  if (query && !query.matches(labels)) errors.push(fieldErrors.invalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
  if (query?.isEmpty()) errors.push(fieldErrors.invalid('spec.selector', spec.selector, 'empty selector is invalid for daemonset'));
  errors.push(...templateErrors(template, 'spec.template'));
  const podSpec = isRecord(template.spec) ? template.spec : {};
  errors.push(...validatePodSpec(podSpec, 'spec.template.spec'));
  if (podSpec.restartPolicy !== 'Always') errors.push(fieldErrors.notSupported('spec.template.spec.restartPolicy', podSpec.restartPolicy ?? '', ['Always']));
  if (podSpec.activeDeadlineSeconds !== undefined) {
    errors.push(fieldErrors.forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in DaemonSet is not Supported'));
  }
  errors.push(...updateStrategyErrors(isRecord(spec.updateStrategy) ? spec.updateStrategy : {}));
  return errors;
}

/** The template generation apps/v1 keeps in an annotation; 0 when absent or not a number. */
function templateGeneration(obj: ApiObject | undefined): number {
  const value = Number(obj?.metadata?.annotations?.[DAEMON_SET_TEMPLATE_GENERATION_ANNOTATION]);
  return Number.isSafeInteger(value) && value > 0 ? value : 0;
}

function setTemplateGeneration(obj: ApiObject, generation: number): void {
  const meta = (obj.metadata ??= {});
  meta.annotations = { ...(meta.annotations ?? {}), [DAEMON_SET_TEMPLATE_GENERATION_ANNOTATION]: String(generation) };
}

/** ValidateDaemonSetStatusUpdate beyond the schema's non-negative counts. */
function validateDaemonSetStatus(obj: ApiObject, current: ApiObject): FieldError[] {
  return collisionCountDecrement(obj, current);
}

/** Kubernetes' DaemonSet (apps/v1), run by the daemonset controller. */
export const daemonSetDefinition = defineKind({
  group: 'apps',
  version: 'v1',
  kind: 'DaemonSet',
  resource: 'daemonsets',
  namespaced: true,
  shortNames: ['ds'],
  categories: ['all'],
  subresources: { status: true },
  strategy: {
    podSpec: { path: ['spec', 'template', 'spec'], template: true },
    // daemonSetStrategy: template generation 1 at creation, one more with each change of the template
    // (a client's own value is not taken); status starts with the counts Go always writes.
    prepareForCreate(ds) {
      setTemplateGeneration(ds, 1);
      ds.status = { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 };
    },
    prepareForUpdate(ds, current) {
      // Compared as stored: a template that differs only by what defaulting adds has not changed.
      const template = specOf(compileKind(daemonSetDefinition).default(structuredClone(ds))).template;
      const generation = templateGeneration(current);
      setTemplateGeneration(ds, jsonEqual(template, specOf(current).template) ? generation : generation + 1);
    },
    // Kubernetes checks the selector's immutability outside ValidateDaemonSetUpdate (extensions/v1beta1 allowed the change).
    validateUpdate: immutableSelector,
    status: { validateUpdate: validateDaemonSetStatus },
  },
  schema: DaemonSetSchema,
  columns: [
    nameColumn(),
    column('Desired', 'integer', (o) => as<DaemonSet>(o).status?.desiredNumberScheduled ?? 0, {
      description:
        'The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/',
    }),
    column('Current', 'integer', (o) => as<DaemonSet>(o).status?.currentNumberScheduled ?? 0, {
      description:
        'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/',
    }),
    column('Ready', 'integer', (o) => as<DaemonSet>(o).status?.numberReady ?? 0, {
      description: 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.',
    }),
    column('Up-to-date', 'integer', (o) => as<DaemonSet>(o).status?.updatedNumberScheduled ?? 0, {
      description: 'The total number of nodes that are running updated daemon pod',
    }),
    column('Available', 'integer', (o) => as<DaemonSet>(o).status?.numberAvailable ?? 0, {
      description:
        'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)',
    }),
    column('Node Selector', 'string', (o) => formatLabels(as<DaemonSet>(o).spec?.template?.spec?.nodeSelector), {
      description:
        "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/",
    }),
    ageColumn(),
    column('Containers', 'string', (o) => containerCells(as<DaemonSet>(o).spec?.template?.spec?.containers).names, {
      priority: 1,
      description: 'Names of each container in the template.',
    }),
    column('Images', 'string', (o) => containerCells(as<DaemonSet>(o).spec?.template?.spec?.containers).images, {
      priority: 1,
      description: 'Images referenced by each container in the template.',
    }),
    column('Selector', 'string', (o) => selectorCell(as<DaemonSet>(o).spec?.selector), {
      priority: 1,
      description:
        'A label query over pods that are managed by the daemon set. Must match in order to be controlled. If empty, defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
    }),
  ],
  defaultHooks: [defaultDaemonSet],
  validationRules: [validateDaemonSet],
});
