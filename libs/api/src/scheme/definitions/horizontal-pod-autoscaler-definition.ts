import { isDNS1123Label, isValidPathSegmentName } from '@svc/machinery';
import {
  HorizontalPodAutoscalerSchema,
  MetricSourceTypes,
  ScalingPolicySelects,
  ScalingPolicyTypes,
  type CrossVersionObjectReference,
  type HorizontalPodAutoscaler,
  type HPAScalingRules,
  type MetricSpec,
  type MetricStatus,
  type MetricTarget,
} from '../../kinds/autoscaling/horizontal-pod-autoscaler';
import { HorizontalPodAutoscalerSchema as HorizontalPodAutoscalerV1Schema } from '../../kinds/autoscaling/horizontal-pod-autoscaler-v1';
import { canonicalQuantity, quantityNanoValue } from '../../meta/quantity';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject, KindDefinition, TableColumn, ValidationRule } from '../kind-definition';
import { ageColumn, column, nameColumn } from '../table';
import { as, defineKind } from './define-kind';
import { defaultHorizontalPodAutoscalerV2, HPA_V2, HpaAnnotationError, hpaV1ToV2, hpaV2ToV1 } from './horizontal-pod-autoscaler-conversion';
import { validateContainerResourceName } from './resource-names';

/** Kubernetes' MaxPeriodSeconds and MaxStabilizationWindowSeconds. */
const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;

function validateReference(ref: Partial<CrossVersionObjectReference> | undefined, path: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const key of ['kind', 'name'] as const) {
    const value = ref?.[key];
    if (value === '') errors.push(fieldErrors.required(`${path}.${key}`));
    else if (typeof value === 'string') for (const msg of isValidPathSegmentName(value)) errors.push(fieldErrors.invalid(`${path}.${key}`, value, msg));
  }
  return errors;
}

const positive = (value: unknown): boolean => (quantityNanoValue(value) ?? 0n) > 0n;
const shown = (value: unknown): unknown => canonicalQuantity(value) ?? value;

function validateTarget(target: Partial<MetricTarget> | undefined, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const type = target?.type;
  if (type === '') errors.push(fieldErrors.required(`${path}.type`, 'must specify a metric target type'));
  if (type !== undefined && type !== 'Utilization' && type !== 'Value' && type !== 'AverageValue') {
    errors.push(fieldErrors.invalid(`${path}.type`, type, 'must be either Utilization, Value, or AverageValue'));
  }
  if (target?.value !== undefined && !positive(target.value)) errors.push(fieldErrors.invalid(`${path}.value`, shown(target.value), 'must be positive'));
  if (target?.averageValue !== undefined && !positive(target.averageValue)) {
    errors.push(fieldErrors.invalid(`${path}.averageValue`, shown(target.averageValue), 'must be positive'));
  }
  if (target?.averageUtilization !== undefined && target.averageUtilization < 1) {
    errors.push(fieldErrors.invalid(`${path}.averageUtilization`, target.averageUtilization, 'must be greater than 0'));
  }
  return errors;
}

function validateMetricName(name: string | undefined, path: string): FieldError[] {
  if (name === undefined) return [];
  if (name === '') return [fieldErrors.required(`${path}.name`, 'must specify a metric name')];
  return isValidPathSegmentName(name).map((msg) => fieldErrors.invalid(`${path}.name`, name, msg));
}

/** The fields a metric source must not hold, in Kubernetes' order of checking. */
const SOURCE_FIELDS = ['object', 'external', 'pods', 'resource', 'containerResource'] as const;
const SOURCE_OF_TYPE: Record<string, (typeof SOURCE_FIELDS)[number]> = {
  Object: 'object',
  Pods: 'pods',
  Resource: 'resource',
  External: 'external',
  ContainerResource: 'containerResource',
};

function validateSource(spec: MetricSpec, source: (typeof SOURCE_FIELDS)[number], path: string): FieldError[] {
  const errors: FieldError[] = [];
  const at = `${path}.${source}`;
  switch (source) {
    case 'object': {
      const src = spec.object!;
      errors.push(...validateReference(src.describedObject, `${at}.describedObject`), ...validateMetricName(src.metric?.name, `${at}.metric`));
      errors.push(...validateTarget(src.target, `${at}.target`));
      if (src.target?.value === undefined && src.target?.averageValue === undefined) {
        errors.push(fieldErrors.required(`${at}.target.averageValue`, 'must set either a target value or averageValue'));
      }
      break;
    }
    case 'external': {
      const src = spec.external!;
      errors.push(...validateMetricName(src.metric?.name, `${at}.metric`), ...validateTarget(src.target, `${at}.target`));
      if (src.target?.value === undefined && src.target?.averageValue === undefined) {
        errors.push(fieldErrors.required(`${at}.target.averageValue`, 'must set either a target value for metric or a per-pod target'));
      }
      if (src.target?.value !== undefined && src.target?.averageValue !== undefined) {
        errors.push(fieldErrors.forbidden(`${at}.target.value`, 'may not set both a target value for metric and a per-pod target'));
      }
      break;
    }
    case 'pods': {
      const src = spec.pods!;
      errors.push(...validateMetricName(src.metric?.name, `${at}.metric`), ...validateTarget(src.target, `${at}.target`));
      if (src.target?.averageValue === undefined) errors.push(fieldErrors.required(`${at}.target.averageValue`, 'must specify a positive target averageValue'));
      break;
    }
    case 'resource':
    case 'containerResource': {
      const src = source === 'resource' ? spec.resource! : spec.containerResource!;
      if (src.name === '') errors.push(fieldErrors.required(`${at}.name`, 'must specify a resource name'));
      else if (source === 'containerResource' && src.name !== undefined) errors.push(...validateContainerResourceName(src.name, `${at}.name`));
      if (source === 'containerResource') {
        const container = spec.containerResource!.container;
        if (container === '') errors.push(fieldErrors.required(`${at}.container`, 'must specify a container'));
        else if (container !== undefined) for (const msg of isDNS1123Label(container)) errors.push(fieldErrors.invalid(`${at}.container`, container, msg));
      }
      errors.push(...validateTarget(src.target, `${at}.target`));
      if (src.target?.averageUtilization === undefined && src.target?.averageValue === undefined) {
        errors.push(fieldErrors.required(`${at}.target.averageUtilization`, 'must set either a target raw value or a target utilization'));
      }
      if (src.target?.averageUtilization !== undefined && src.target?.averageValue !== undefined) {
        errors.push(fieldErrors.forbidden(`${at}.target.averageValue`, 'may not set both a target raw value and a target utilization'));
      }
      break;
    }
  }
  return errors;
}

/** Kubernetes' validateMetricSpec. */
function validateMetric(spec: MetricSpec, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const supported = [...MetricSourceTypes];
  if (spec.type === '') errors.push(fieldErrors.required(`${path}.type`, 'must specify a metric source type'));
  if (!supported.includes(spec.type as (typeof MetricSourceTypes)[number])) errors.push(fieldErrors.notSupported(`${path}.type`, spec.type, supported));
  const present = SOURCE_FIELDS.filter((f) => spec[f] !== undefined && spec[f] !== null);
  if (present.length > 0) errors.push(...validateSource(spec, present[0], path));
  const expected = SOURCE_OF_TYPE[spec.type];
  if (expected !== undefined && spec[expected] === undefined)
    errors.push(fieldErrors.required(`${path}.${expected}`, 'must populate information for the given metric source'));
  if (expected === undefined) errors.push(fieldErrors.notSupported(`${path}.type`, spec.type, supported));
  if (present.length !== 1) {
    for (const f of present) if (f !== expected) errors.push(fieldErrors.forbidden(`${path}.${f}`, 'must populate the given metric source only'));
  }
  return errors;
}

function validateRules(rules: HPAScalingRules | undefined, path: string): FieldError[] {
  if (rules === undefined || rules === null) return [];
  const errors: FieldError[] = [];
  const window = rules.stabilizationWindowSeconds;
  if (window !== undefined && window < 0)
    errors.push(fieldErrors.invalid(`${path}.stabilizationWindowSeconds`, window, 'must be greater than or equal to zero'));
  if (window !== undefined && window > MAX_STABILIZATION_WINDOW_SECONDS) {
    errors.push(fieldErrors.invalid(`${path}.stabilizationWindowSeconds`, window, `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`));
  }
  if (rules.selectPolicy !== undefined && !(ScalingPolicySelects as readonly string[]).includes(rules.selectPolicy)) {
    errors.push(fieldErrors.notSupported(`${path}.selectPolicy`, rules.selectPolicy, ScalingPolicySelects));
  }
  const policies = rules.policies ?? [];
  if (policies.length === 0) errors.push(fieldErrors.required(`${path}.policies`, 'must specify at least one Policy'));
  policies.forEach((policy, i) => {
    const at = `${path}.policies[${i}]`;
    if (!(ScalingPolicyTypes as readonly string[]).includes(policy.type)) errors.push(fieldErrors.notSupported(`${at}.type`, policy.type, ScalingPolicyTypes));
    if (policy.value <= 0) errors.push(fieldErrors.invalid(`${at}.value`, policy.value, 'must be greater than zero'));
    if (policy.periodSeconds <= 0) errors.push(fieldErrors.invalid(`${at}.periodSeconds`, policy.periodSeconds, 'must be greater than zero'));
    if (policy.periodSeconds > MAX_PERIOD_SECONDS) {
      errors.push(fieldErrors.invalid(`${at}.periodSeconds`, policy.periodSeconds, `must be less than or equal to ${MAX_PERIOD_SECONDS}`));
    }
  });
  return errors;
}

/**
 * Kubernetes' validateHorizontalPodAutoscalerSpec. minReplicas may be 0 only on an update of an
 * autoscaler that already had 0 (HPAScaleToZero is an alpha gate, off).
 */
function validateAutoscaler(object: ApiObject, current?: ApiObject): FieldError[] {
  const spec = as<HorizontalPodAutoscaler>(object).spec;
  if (spec === undefined) return [];
  const errors: FieldError[] = [];
  const lowerBound = current !== undefined && as<HorizontalPodAutoscaler>(current).spec?.minReplicas === 0 ? 0 : 1;
  if (spec.minReplicas !== undefined && spec.minReplicas < lowerBound) {
    errors.push(fieldErrors.invalid('spec.minReplicas', spec.minReplicas, `must be greater than or equal to ${lowerBound}`));
  }
  if (spec.maxReplicas !== undefined && spec.maxReplicas < 1) errors.push(fieldErrors.invalid('spec.maxReplicas', spec.maxReplicas, 'must be greater than 0'));
  if (spec.minReplicas !== undefined && spec.maxReplicas !== undefined && spec.maxReplicas < spec.minReplicas) {
    errors.push(fieldErrors.invalid('spec.maxReplicas', spec.maxReplicas, 'must be greater than or equal to `minReplicas`'));
  }
  errors.push(...validateReference(spec.scaleTargetRef, 'spec.scaleTargetRef'));
  const metrics = spec.metrics ?? [];
  metrics.forEach((m, i) => errors.push(...validateMetric(m, `spec.metrics[${i}]`)));
  if (spec.minReplicas === 0 && !metrics.some((m) => m.type === 'Object' || m.type === 'External')) {
    errors.push(fieldErrors.forbidden('spec.metrics', 'must specify at least one Object or External metric to support scaling to zero replicas'));
  }
  if (spec.behavior) {
    errors.push(...validateRules(spec.behavior.scaleUp, 'spec.behavior.scaleUp'), ...validateRules(spec.behavior.scaleDown, 'spec.behavior.scaleDown'));
  }
  const status = as<HorizontalPodAutoscaler>(object).status;
  for (const key of ['currentReplicas', 'desiredReplicas'] as const) {
    const value = status?.[key];
    if (value !== undefined && value < 0) errors.push(fieldErrors.invalid(`status.${key}`, value, 'must be greater than or equal to 0'));
  }
  return errors;
}

/** An autoscaling/v1 object is checked as Kubernetes checks it: converted (its annotations read), then as v2. */
const validateV1Autoscaler: ValidationRule = (object, current) => {
  let converted: ApiObject;
  let previous: ApiObject | undefined;
  try {
    converted = hpaV1ToV2(object);
    previous = current === undefined ? undefined : hpaV1ToV2(current);
  } catch (error) {
    if (!(error instanceof HpaAnnotationError)) throw error;
    return [fieldErrors.invalid(`metadata.annotations[${error.annotation}]`, object.metadata?.annotations?.[error.annotation], error.message)];
  }
  return validateAutoscaler(converted, previous);
};

/** Kubernetes' formatHPAMetrics: up to two metrics as `current/target`, then `+ N more...`. */
export function formatHpaMetrics(specs: readonly MetricSpec[] | undefined, statuses: readonly MetricStatus[] | undefined): string {
  if (!specs || specs.length === 0) return '<none>';
  const q = (value: string | number | undefined) => (value === undefined ? '<unknown>' : (canonicalQuantity(value) ?? String(value)));
  const pct = (value: number | undefined, fallback: string) => (value === undefined ? fallback : `${value}%`);
  const list = specs.map((spec, i) => {
    const status = statuses?.[i];
    switch (spec.type) {
      case 'External':
        return spec.external?.target?.averageValue !== undefined
          ? `${q(status?.external?.current?.averageValue)}/${q(spec.external.target.averageValue)} (avg)`
          : `${status?.external ? q(status.external.current?.value) : '<unknown>'}/${q(spec.external?.target?.value)}`;
      case 'Pods':
        return `${status?.pods ? q(status.pods.current?.averageValue) : '<unknown>'}/${q(spec.pods?.target?.averageValue)}`;
      case 'Object':
        return spec.object?.target?.averageValue !== undefined
          ? `${q(status?.object?.current?.averageValue)}/${q(spec.object.target.averageValue)} (avg)`
          : `${status?.object ? q(status.object.current?.value) : '<unknown>'}/${q(spec.object?.target?.value)}`;
      case 'Resource':
      case 'ContainerResource': {
        const source = spec.type === 'Resource' ? spec.resource : spec.containerResource;
        const current = spec.type === 'Resource' ? status?.resource : status?.containerResource;
        if (source?.target?.averageValue !== undefined)
          return `${source.name}: ${current ? q(current.current?.averageValue) : '<unknown>'}/${q(source.target.averageValue)}`;
        return `${source?.name}: ${pct(current?.current?.averageUtilization, '<unknown>')}/${pct(source?.target?.averageUtilization, '<auto>')}`;
      }
      default:
        return '<unknown type>';
    }
  });
  if (list.length > 2) return `${list.slice(0, 2).join(', ')} + ${list.length - 2} more...`;
  return list.join(', ');
}

/** Kubernetes' columns for `kubectl get hpa`, read from the v2 form of the object. */
function autoscalerColumns(v2Of: (o: ApiObject) => HorizontalPodAutoscaler): TableColumn[] {
  return [
    nameColumn(),
    column('Reference', 'string', (o) => `${v2Of(o).spec?.scaleTargetRef?.kind ?? ''}/${v2Of(o).spec?.scaleTargetRef?.name ?? ''}`, {
      description: 'The object scaled, through its scale subresource.',
    }),
    column('Targets', 'string', (o) => formatHpaMetrics(v2Of(o).spec?.metrics, v2Of(o).status?.currentMetrics), {
      description: 'What the target is: Utilization, Value or AverageValue.',
    }),
    column('MinPods', 'string', (o) => (v2Of(o).spec?.minReplicas === undefined ? '<unset>' : String(v2Of(o).spec?.minReplicas)), {
      description: 'The fewest replicas the autoscaler scales down to; 1 by default.',
    }),
    column('MaxPods', 'string', (o) => v2Of(o).spec?.maxReplicas ?? 0, {
      description: 'The most replicas the autoscaler scales up to; not fewer than minReplicas.',
    }),
    column('Replicas', 'string', (o) => v2Of(o).status?.currentReplicas ?? 0, { description: 'How many replicas the target had when last read.' }),
    ageColumn(),
  ];
}

export const horizontalPodAutoscalerDefinition: KindDefinition = defineKind({
  group: 'autoscaling',
  version: 'v2',
  kind: 'HorizontalPodAutoscaler',
  resource: 'horizontalpodautoscalers',
  namespaced: true,
  shortNames: ['hpa'],
  categories: ['all'],
  subresources: { status: true },
  strategy: {
    // Kubernetes' PrepareForCreate starts with an empty status; desiredReplicas has no omitempty.
    prepareForCreate(hpa) {
      hpa.status = { desiredReplicas: 0 };
    },
  },
  schema: HorizontalPodAutoscalerSchema,
  defaultHooks: [defaultHorizontalPodAutoscalerV2],
  columns: autoscalerColumns((o) => as<HorizontalPodAutoscaler>(o)),
  validationRules: [validateAutoscaler],
});

/**
 * autoscaling/v1, served from the same storage: objects are stored at v2 and converted both ways,
 * v1's targetCPUUtilizationPercentage standing for the CPU utilization metric and its annotations for
 * what only v2 has.
 */
export const horizontalPodAutoscalerV1Definition: KindDefinition = defineKind({
  group: 'autoscaling',
  version: 'v1',
  kind: 'HorizontalPodAutoscaler',
  resource: 'horizontalpodautoscalers',
  namespaced: true,
  shortNames: ['hpa'],
  categories: ['all'],
  subresources: { status: true },
  storage: false,
  strategy: {
    prepareForCreate(hpa) {
      hpa.status = { currentReplicas: 0, desiredReplicas: 0 };
    },
  },
  schema: HorizontalPodAutoscalerV1Schema,
  columns: autoscalerColumns((o) => {
    try {
      return as<HorizontalPodAutoscaler>(o.apiVersion === HPA_V2 ? o : hpaV1ToV2(o));
    } catch {
      return as<HorizontalPodAutoscaler>({});
    }
  }),
  validationRules: [validateV1Autoscaler],
  // Kubernetes' conversion through its internal type, both ways, in the server.
  storedAs: { definition: horizontalPodAutoscalerDefinition, toStored: hpaV1ToV2, fromStored: hpaV2ToV1 },
});
