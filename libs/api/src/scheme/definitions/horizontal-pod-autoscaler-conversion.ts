import { isRecord } from '@svc/machinery';
import {
  DEFAULT_CPU_UTILIZATION,
  type CrossVersionObjectReference,
  type HorizontalPodAutoscaler,
  type HorizontalPodAutoscalerCondition,
  type HorizontalPodAutoscalerBehavior,
  type HPAScalingRules,
  type MetricSpec,
  type MetricStatus,
} from '../../kinds/autoscaling/horizontal-pod-autoscaler';
import {
  HPA_BEHAVIOR_ANNOTATION,
  HPA_CONDITIONS_ANNOTATION,
  HPA_METRIC_SPECS_ANNOTATION,
  HPA_METRIC_STATUSES_ANNOTATION,
  type HorizontalPodAutoscalerV1,
} from '../../kinds/autoscaling/horizontal-pod-autoscaler-v1';
import { canonicalQuantity } from '../../meta/quantity';
import type { ApiObject } from '../kind-definition';

export const HPA_V1 = 'autoscaling/v1';
export const HPA_V2 = 'autoscaling/v2';

const ROUND_TRIP_ANNOTATIONS = [HPA_METRIC_SPECS_ANNOTATION, HPA_METRIC_STATUSES_ANNOTATION, HPA_CONDITIONS_ANNOTATION, HPA_BEHAVIOR_ANNOTATION];

type Json = Record<string, unknown>;

/** A v1 object's annotation that does not parse as what it should hold: the message names it. */
export class HpaAnnotationError extends Error {
  constructor(
    readonly annotation: string,
    detail: string,
  ) {
    super(detail);
  }
}

const isCpuUtilization = (m: MetricSpec): boolean =>
  m.type === 'Resource' && m.resource !== undefined && m.resource.name === 'cpu' && m.resource.target?.averageUtilization !== undefined;

const quantity = (value: unknown): string | undefined => {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  return canonicalQuantity(value) ?? String(value);
};
/** A Go Quantity field without a pointer: `0` when unset. */
const plainQuantity = (value: unknown): string => quantity(value) ?? '0';

function withoutRoundTrip(annotations: Record<string, string> | undefined): Record<string, string> | undefined {
  if (annotations === undefined) return undefined;
  const out = { ...annotations };
  for (const key of ROUND_TRIP_ANNOTATIONS) delete out[key];
  return out;
}

function compact<T extends Json>(object: T): T {
  for (const key of Object.keys(object)) if (object[key] === undefined) delete object[key];
  return object;
}

// ---- v2 -> v1 (Kubernetes' Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler) ----

function v1MetricSpec(m: MetricSpec): Json {
  const out: Json = { type: m.type };
  if (m.object) {
    out.object = compact({
      target: m.object.describedObject,
      metricName: m.object.metric?.name,
      targetValue: plainQuantity(m.object.target?.value),
      selector: m.object.metric?.selector,
      averageValue: quantity(m.object.target?.averageValue),
    });
  }
  if (m.pods) {
    out.pods = compact({ metricName: m.pods.metric?.name, targetAverageValue: plainQuantity(m.pods.target?.averageValue), selector: m.pods.metric?.selector });
  }
  if (m.resource) {
    out.resource = compact({
      name: m.resource.name,
      targetAverageUtilization: m.resource.target?.averageUtilization,
      targetAverageValue: quantity(m.resource.target?.averageValue),
    });
  }
  if (m.containerResource) {
    out.containerResource = compact({
      name: m.containerResource.name,
      targetAverageUtilization: m.containerResource.target?.averageUtilization,
      targetAverageValue: quantity(m.containerResource.target?.averageValue),
      container: m.containerResource.container,
    });
  }
  if (m.external) {
    out.external = compact({
      metricName: m.external.metric?.name,
      metricSelector: m.external.metric?.selector,
      targetValue: quantity(m.external.target?.value),
      targetAverageValue: quantity(m.external.target?.averageValue),
    });
  }
  return out;
}

function v1MetricStatus(m: MetricStatus): Json {
  const out: Json = { type: m.type };
  if (m.object) {
    out.object = compact({
      target: m.object.describedObject,
      metricName: m.object.metric?.name,
      currentValue: plainQuantity(m.object.current?.value),
      selector: m.object.metric?.selector,
      averageValue: quantity(m.object.current?.averageValue),
    });
  }
  if (m.pods) {
    out.pods = compact({
      metricName: m.pods.metric?.name,
      currentAverageValue: plainQuantity(m.pods.current?.averageValue),
      selector: m.pods.metric?.selector,
    });
  }
  if (m.resource) {
    out.resource = compact({
      name: m.resource.name,
      currentAverageUtilization: m.resource.current?.averageUtilization,
      currentAverageValue: plainQuantity(m.resource.current?.averageValue),
    });
  }
  if (m.containerResource) {
    out.containerResource = compact({
      name: m.containerResource.name,
      currentAverageUtilization: m.containerResource.current?.averageUtilization,
      currentAverageValue: plainQuantity(m.containerResource.current?.averageValue),
      container: m.containerResource.container,
    });
  }
  if (m.external) {
    out.external = compact({
      metricName: m.external.metric?.name,
      metricSelector: m.external.metric?.selector,
      currentValue: plainQuantity(m.external.current?.value),
      currentAverageValue: quantity(m.external.current?.averageValue),
    });
  }
  return out;
}

/** Kubernetes marshals its internal behavior type, which has no JSON tags: Go's field names, nil pointers as null. */
function goBehavior(b: HorizontalPodAutoscalerBehavior): Json {
  const rules = (r: HPAScalingRules | undefined) =>
    r === undefined
      ? null
      : {
          StabilizationWindowSeconds: r.stabilizationWindowSeconds ?? null,
          SelectPolicy: r.selectPolicy ?? null,
          Policies: r.policies?.map((p) => ({ Type: p.type, Value: p.value, PeriodSeconds: p.periodSeconds })) ?? null,
        };
  return { ScaleUp: rules(b.scaleUp), ScaleDown: rules(b.scaleDown) };
}

/** A stored (v2) autoscaler as autoscaling/v1 serves it. */
export function hpaV2ToV1(object: ApiObject): ApiObject {
  const hpa = object as HorizontalPodAutoscaler;
  const spec = hpa.spec;
  const metrics = spec?.metrics ?? [];
  const cpu = metrics.find((m) => m.type === 'Resource' && m.resource?.name === 'cpu');
  const status = hpa.status;
  const current = status?.currentMetrics ?? [];
  const currentCpu = current.find((m) => m.type === 'Resource' && m.resource?.name === 'cpu' && m.resource.current?.averageUtilization !== undefined);
  const annotations = withoutRoundTrip(hpa.metadata?.annotations);
  const extra: Record<string, string> = {};
  const others = metrics.filter((m) => !isCpuUtilization(m));
  if (others.length > 0) extra[HPA_METRIC_SPECS_ANNOTATION] = JSON.stringify(others.map(v1MetricSpec));
  if (current.length > 0) extra[HPA_METRIC_STATUSES_ANNOTATION] = JSON.stringify(current.map(v1MetricStatus));
  if (spec?.behavior !== undefined) extra[HPA_BEHAVIOR_ANNOTATION] = JSON.stringify(goBehavior(spec.behavior));
  const conditions = status?.conditions ?? [];
  if (conditions.length > 0) {
    extra[HPA_CONDITIONS_ANNOTATION] = JSON.stringify(
      conditions.map((c) => ({ type: c.type, status: c.status, lastTransitionTime: c.lastTransitionTime ?? null, reason: c.reason, message: c.message })),
    );
  }
  const mergedAnnotations = Object.keys(extra).length > 0 ? { ...(annotations ?? {}), ...extra } : annotations;
  const metadata = hpa.metadata === undefined ? undefined : compact({ ...hpa.metadata, annotations: mergedAnnotations });
  const out: HorizontalPodAutoscalerV1 = {
    ...(hpa as Json),
    apiVersion: HPA_V1,
    kind: hpa.kind,
    metadata,
    spec:
      spec === undefined
        ? undefined
        : compact({
            scaleTargetRef: spec.scaleTargetRef,
            minReplicas: spec.minReplicas,
            maxReplicas: spec.maxReplicas,
            targetCPUUtilizationPercentage: cpu?.resource?.target?.averageUtilization,
          }),
    status:
      status === undefined
        ? undefined
        : compact({
            observedGeneration: status.observedGeneration,
            lastScaleTime: status.lastScaleTime,
            currentReplicas: status.currentReplicas ?? 0,
            desiredReplicas: status.desiredReplicas,
            currentCPUUtilizationPercentage: currentCpu?.resource?.current?.averageUtilization,
          }),
  };
  return compact(out as Json);
}

// ---- v1 -> v2 (Kubernetes' Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler) ----

function parseAnnotation(annotations: Record<string, string> | undefined, key: string): unknown {
  const text = annotations?.[key];
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new HpaAnnotationError(key, (error as Error).message);
  }
}

function listOf(value: unknown, annotation: string): Json[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every(isRecord)) throw new HpaAnnotationError(annotation, 'must be a JSON list of objects');
  return value;
}

const rec = (value: unknown): Json | undefined => (isRecord(value) ? value : undefined);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

function v2MetricSpec(m: Json): MetricSpec {
  const out: MetricSpec = { type: str(m.type) ?? '' };
  const object = rec(m.object);
  if (object) {
    const averageValue = quantity(object.averageValue);
    out.object = {
      describedObject: (rec(object.target) ?? {}) as CrossVersionObjectReference,
      metric: compact({ name: str(object.metricName) ?? '', selector: rec(object.selector) }),
      target: compact({ type: averageValue === undefined ? 'Value' : 'AverageValue', value: plainQuantity(object.targetValue), averageValue }),
    };
  }
  const pods = rec(m.pods);
  if (pods) {
    out.pods = {
      metric: compact({ name: str(pods.metricName) ?? '', selector: rec(pods.selector) }),
      target: { type: 'AverageValue', averageValue: plainQuantity(pods.targetAverageValue) },
    };
  }
  const resource = rec(m.resource);
  if (resource) {
    const utilization = num(resource.targetAverageUtilization);
    out.resource = {
      name: str(resource.name) ?? '',
      target: compact({
        type: utilization === undefined ? 'AverageValue' : 'Utilization',
        averageValue: quantity(resource.targetAverageValue),
        averageUtilization: utilization,
      }),
    };
  }
  const container = rec(m.containerResource);
  if (container) {
    const utilization = num(container.targetAverageUtilization);
    out.containerResource = {
      name: str(container.name) ?? '',
      container: str(container.container) ?? '',
      target: compact({
        type: utilization === undefined ? 'AverageValue' : 'Utilization',
        averageValue: quantity(container.targetAverageValue),
        averageUtilization: utilization,
      }),
    };
  }
  const external = rec(m.external);
  if (external) {
    const value = quantity(external.targetValue);
    out.external = {
      metric: compact({ name: str(external.metricName) ?? '', selector: rec(external.metricSelector) }),
      target: compact({ type: value === undefined ? 'AverageValue' : 'Value', value, averageValue: quantity(external.targetAverageValue) }),
    };
  }
  return out;
}

function v2MetricStatus(m: Json): MetricStatus {
  const out: MetricStatus = { type: str(m.type) ?? '' };
  const object = rec(m.object);
  if (object) {
    out.object = {
      describedObject: (rec(object.target) ?? {}) as CrossVersionObjectReference,
      metric: compact({ name: str(object.metricName) ?? '', selector: rec(object.selector) }),
      current: compact({ value: plainQuantity(object.currentValue), averageValue: quantity(object.averageValue) }),
    };
  }
  const pods = rec(m.pods);
  if (pods) {
    out.pods = {
      metric: compact({ name: str(pods.metricName) ?? '', selector: rec(pods.selector) }),
      current: { averageValue: plainQuantity(pods.currentAverageValue) },
    };
  }
  const resource = rec(m.resource);
  if (resource) {
    out.resource = {
      name: str(resource.name) ?? '',
      current: compact({ averageValue: plainQuantity(resource.currentAverageValue), averageUtilization: num(resource.currentAverageUtilization) }),
    };
  }
  const container = rec(m.containerResource);
  if (container) {
    out.containerResource = {
      name: str(container.name) ?? '',
      container: str(container.container) ?? '',
      current: compact({ averageValue: plainQuantity(container.currentAverageValue), averageUtilization: num(container.currentAverageUtilization) }),
    };
  }
  const external = rec(m.external);
  if (external) {
    out.external = {
      metric: compact({ name: str(external.metricName) ?? '', selector: rec(external.metricSelector) }),
      current: compact({ value: plainQuantity(external.currentValue), averageValue: quantity(external.currentAverageValue) }),
    };
  }
  return out;
}

/** Go's json.Unmarshal matches field names without regard to case: `ScaleUp` and `scaleUp` alike. */
function field(object: Json, name: string): unknown {
  const lower = name.toLowerCase();
  const key = Object.keys(object).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : object[key];
}

function v2Rules(value: unknown): HPAScalingRules | undefined {
  const r = rec(value);
  if (r === undefined) return undefined;
  const policies = field(r, 'policies');
  return compact({
    stabilizationWindowSeconds: num(field(r, 'stabilizationWindowSeconds')),
    selectPolicy: str(field(r, 'selectPolicy')),
    policies: Array.isArray(policies)
      ? policies
          .filter(isRecord)
          .map((p) => ({ type: str(field(p, 'type')) ?? '', value: num(field(p, 'value')) ?? 0, periodSeconds: num(field(p, 'periodSeconds')) ?? 0 }))
      : undefined,
  });
}

/** Well-formed behavior from the annotation; anything else is dropped, as Kubernetes moves only well-formed data. */
function v2Behavior(value: unknown): HorizontalPodAutoscalerBehavior | undefined {
  const b = rec(value);
  if (b === undefined) return undefined;
  const behavior = compact({ scaleUp: v2Rules(field(b, 'scaleUp')), scaleDown: v2Rules(field(b, 'scaleDown')) });
  return Object.keys(behavior).length > 0 ? behavior : undefined;
}

/** An autoscaling/v1 object as it is stored (v2), with v2's defaults, as a read of it would give. */
export function hpaV1ToV2(object: ApiObject): ApiObject {
  const hpa = object as HorizontalPodAutoscalerV1;
  const annotations = hpa.metadata?.annotations;
  const otherMetrics = listOf(parseAnnotation(annotations, HPA_METRIC_SPECS_ANNOTATION), HPA_METRIC_SPECS_ANNOTATION).map(v2MetricSpec);
  const currentAnnotation = parseAnnotation(annotations, HPA_METRIC_STATUSES_ANNOTATION);
  const conditions = listOf(parseAnnotation(annotations, HPA_CONDITIONS_ANNOTATION), HPA_CONDITIONS_ANNOTATION);
  const behavior = v2Behavior(parseAnnotation(annotations, HPA_BEHAVIOR_ANNOTATION));
  const spec = hpa.spec;
  const metrics: MetricSpec[] = [...otherMetrics];
  if (spec?.targetCPUUtilizationPercentage !== undefined) {
    metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: spec.targetCPUUtilizationPercentage } } });
  }
  const status = hpa.status;
  let currentMetrics: MetricStatus[] | undefined;
  if (currentAnnotation !== undefined) currentMetrics = listOf(currentAnnotation, HPA_METRIC_STATUSES_ANNOTATION).map(v2MetricStatus);
  else if (status?.currentCPUUtilizationPercentage !== undefined) {
    currentMetrics = [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: status.currentCPUUtilizationPercentage } } }];
  }
  const metadata = hpa.metadata === undefined ? undefined : compact({ ...hpa.metadata, annotations: withoutRoundTrip(annotations) });
  const out: HorizontalPodAutoscaler = {
    ...(hpa as Json),
    apiVersion: HPA_V2,
    kind: hpa.kind,
    metadata,
    spec:
      spec === undefined
        ? undefined
        : compact({
            scaleTargetRef: spec.scaleTargetRef,
            minReplicas: spec.minReplicas,
            maxReplicas: spec.maxReplicas,
            metrics,
            behavior,
          }),
    status:
      status === undefined
        ? undefined
        : compact({
            observedGeneration: status.observedGeneration,
            lastScaleTime: status.lastScaleTime,
            // v2's currentReplicas has omitempty, v1's has not.
            currentReplicas: status.currentReplicas === 0 ? undefined : status.currentReplicas,
            desiredReplicas: status.desiredReplicas,
            currentMetrics,
            conditions: conditions.length > 0 ? (conditions as HorizontalPodAutoscalerCondition[]) : undefined,
          }),
  };
  if (out.metadata?.annotations !== undefined && Object.keys(out.metadata.annotations).length === 0) delete out.metadata.annotations;
  const converted = compact(out as Json) as ApiObject;
  defaultHorizontalPodAutoscalerV2(converted);
  return converted;
}

// ---- v2 defaults (Kubernetes' SetDefaults_HorizontalPodAutoscaler of autoscaling/v2) ----

const DEFAULT_SCALE_UP: Required<HPAScalingRules> = {
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [
    { type: 'Pods', value: 4, periodSeconds: 15 },
    { type: 'Percent', value: 100, periodSeconds: 15 },
  ],
};
const DEFAULT_SCALE_DOWN_POLICIES = [{ type: 'Percent', value: 100, periodSeconds: 15 }];

/**
 * No metrics means 80% of the CPU requested; a behavior given has its rules filled in: scale up with no
 * window, the larger of 4 pods and 100% per 15 s; scale down 100% per 15 s, its window left to the
 * controller's --horizontal-pod-autoscaler-downscale-stabilization, as Kubernetes leaves it.
 */
export function defaultHorizontalPodAutoscalerV2(object: ApiObject): void {
  const spec = (object as HorizontalPodAutoscaler).spec;
  if (spec === undefined) return;
  if (spec.minReplicas === undefined) spec.minReplicas = 1;
  if (spec.metrics === undefined || spec.metrics.length === 0) {
    spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } } }];
  }
  const behavior = spec.behavior;
  if (behavior === undefined) return;
  const up = behavior.scaleUp ?? {};
  behavior.scaleUp = {
    ...up,
    stabilizationWindowSeconds: up.stabilizationWindowSeconds ?? DEFAULT_SCALE_UP.stabilizationWindowSeconds,
    selectPolicy: up.selectPolicy ?? DEFAULT_SCALE_UP.selectPolicy,
    policies: up.policies ?? DEFAULT_SCALE_UP.policies.map((p) => ({ ...p })),
  };
  const down = behavior.scaleDown ?? {};
  behavior.scaleDown = compact({
    ...down,
    selectPolicy: down.selectPolicy ?? 'Max',
    policies: down.policies ?? DEFAULT_SCALE_DOWN_POLICIES.map((p) => ({ ...p })),
  });
}

/** Converts an autoscaler between autoscaling/v1 and v2, either way. */
export function convertHorizontalPodAutoscaler(object: ApiObject, apiVersion: string): ApiObject {
  if (object.apiVersion === apiVersion) return object;
  if (apiVersion === HPA_V1) return hpaV2ToV1(object);
  if (apiVersion === HPA_V2) return hpaV1ToV2(object);
  throw new Error(`HorizontalPodAutoscaler has no version ${apiVersion}`);
}
