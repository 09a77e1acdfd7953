import {
  canonicalQuantity,
  HPA_ABLE_TO_SCALE,
  HPA_SCALING_ACTIVE,
  HPA_SCALING_LIMITED,
  quantityMilliValue,
  type HorizontalPodAutoscaler,
  type HorizontalPodAutoscalerCondition,
  type MetricSpec,
  type MetricStatus,
  type Pod,
  type Scale,
} from '@svc/api';
import { BUILTIN_RESOURCES, Client } from '@svc/client';
import { jsonEqual, LabelQuery } from '@svc/machinery';
import {
  EventRecorder,
  GenerationChanged,
  Reconciler,
  type CacheReader,
  type Predicate,
  type Reconcile,
  type ReconcileContext,
  type Request,
  type Result,
} from '@svc/runtime';
import { HorizontalPodAutoscalerOptions } from './horizontal-pod-autoscaler-options';
import { MetricsApiPodMetricsSource, type PodMetricsSource } from './pod-metrics-source';
import { ReplicaCalculator } from './replica-calculator';
import { resourceMetricsOf } from './resource-metrics';
import { ScaleTargets, type ScaleMapping } from './scale-target';
import { ScalingHistory, type Normalized } from './scaling-history';

export const HORIZONTAL_POD_AUTOSCALER_RECONCILER_NAME = 'horizontalpodautoscaling';
/** The events' source component, Kubernetes' name. */
export const HPA_EVENT_COMPONENT = 'horizontal-pod-autoscaler';

type Condition = Pick<HorizontalPodAutoscalerCondition, 'type' | 'status' | 'reason' | 'message'>;

/** What one metric proposed, or why it could not. */
type Proposal = { replicas: number; metric: string; status: MetricStatus } | { error: string; condition: Condition };

/**
 * The controller's status writes come back as updates: only a new spec (or a new autoscaler) calls for
 * a sync before the period is up, as Kubernetes syncs each autoscaler once a period.
 */
const SpecChanged: Predicate = (event) => event.type !== 'update' || GenerationChanged(event);

/**
 * Kubernetes' horizontal-pod-autoscaler controller (pkg/controller/podautoscaler/horizontal.go): each
 * `--horizontal-pod-autoscaler-sync-period`, it reads the target's scale subresource (any kind that
 * has one), its pods (from the cache) and their usage (the resource metrics API), works out the
 * replicas each metric proposes, takes the largest, holds it within the stabilization windows, the
 * rate policies and min/max, writes the scale, and keeps the status, conditions and events as
 * Kubernetes does. Pods, Object and External metrics are not read (there is no custom or external
 * metrics API here): they make ScalingActive False with Kubernetes' reasons.
 */
@Reconciler({
  name: HORIZONTAL_POD_AUTOSCALER_RECONCILER_NAME,
  for: BUILTIN_RESOURCES.horizontalPodAutoscalers,
  predicates: [SpecChanged],
  reads: [BUILTIN_RESOURCES.pods],
})
export class HorizontalPodAutoscalerReconciler implements Reconcile {
  private readonly events: EventRecorder;
  private readonly metrics: PodMetricsSource;
  private readonly calculator: ReplicaCalculator;
  private readonly history: ScalingHistory;
  private readonly targets: ScaleTargets;
  /** The pod selector each autoscaler last had, to tell when two control the same pods. */
  private readonly selectors = new Map<string, LabelQuery>();

  constructor(
    private readonly client: Client,
    private readonly options: HorizontalPodAutoscalerOptions,
  ) {
    this.events = new EventRecorder(client, { component: HPA_EVENT_COMPONENT });
    this.metrics = options.metricsSource ?? new MetricsApiPodMetricsSource(client);
    this.calculator = new ReplicaCalculator(options, options.now);
    this.history = new ScalingHistory(options.downscaleStabilizationMs, options.now);
    this.targets = new ScaleTargets(client);
  }

  async reconcile({ namespace = '', name }: Request, { cache }: ReconcileContext): Promise<Result> {
    const key = `${namespace}/${name}`;
    const shared = cache.get(BUILTIN_RESOURCES.horizontalPodAutoscalers, { namespace, name });
    if (!shared) {
      this.history.forget(key);
      this.selectors.delete(key);
      return {};
    }
    const hpa: HorizontalPodAutoscaler = { ...structuredClone(shared), apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' };
    const original = structuredClone(hpa.status ?? { desiredReplicas: 0 });
    hpa.status = structuredClone(original);
    await this.sync(hpa, key, cache);
    if (!jsonEqual(original, hpa.status)) {
      try {
        await this.client.horizontalPodAutoscalers.updateStatus(hpa);
      } catch (error) {
        void this.events.warning(hpa, 'FailedUpdateStatus', errorText(error));
      }
    }
    return { requeueAfter: this.options.syncPeriodMs };
  }

  /** reconcileAutoscaler: everything but the status write. */
  private async sync(hpa: HorizontalPodAutoscaler, key: string, cache: CacheReader): Promise<void> {
    const spec = hpa.spec!;
    const ref = spec.scaleTargetRef;
    const namespace = hpa.metadata?.namespace ?? '';
    let scale: Scale;
    let mapping: ScaleMapping;
    try {
      if (ref.apiVersion !== undefined && ref.apiVersion.split('/').length > 2) throw new Error(`unexpected GroupVersion string: ${ref.apiVersion}`);
      const found = await this.targets.get(await this.targets.mappings(ref.apiVersion ?? '', ref.kind), namespace, ref.name);
      scale = found.scale;
      mapping = found.mapping;
    } catch (error) {
      const message = errorText(error);
      void this.events.warning(hpa, 'FailedGetScale', message);
      this.setCondition(hpa, {
        type: HPA_ABLE_TO_SCALE,
        status: 'False',
        reason: 'FailedGetScale',
        message: `the HPA controller was unable to get the target's current scale: ${message}`,
      });
      return;
    }
    this.setCondition(hpa, {
      type: HPA_ABLE_TO_SCALE,
      status: 'True',
      reason: 'SucceededGetScale',
      message: "the HPA controller was able to get the target's current scale",
    });
    const currentReplicas = scale.spec?.replicas ?? 0;
    this.history.recordInitial(key, currentReplicas);
    const minReplicas = spec.minReplicas ?? 1;
    let desired = 0;
    let reason = '';
    let rescale = true;
    let statuses: MetricStatus[] | undefined;
    if (currentReplicas === 0 && minReplicas !== 0) {
      desired = 0;
      rescale = false;
      this.setCondition(hpa, {
        type: HPA_SCALING_ACTIVE,
        status: 'False',
        reason: 'ScalingDisabled',
        message: 'scaling is disabled since the replica count of the target is zero',
      });
    } else if (currentReplicas > spec.maxReplicas) {
      reason = 'Current number of replicas above Spec.MaxReplicas';
      desired = spec.maxReplicas;
    } else if (currentReplicas < minReplicas) {
      reason = 'Current number of replicas below Spec.MinReplicas';
      desired = minReplicas;
    } else {
      const computed = await this.computeReplicasForMetrics(hpa, key, scale, cache);
      statuses = computed.statuses;
      if (computed.replicas === -1) {
        this.setStatus(hpa, currentReplicas, hpa.status?.desiredReplicas ?? 0, statuses, false);
        void this.events.warning(hpa, 'FailedComputeMetricsReplicas', computed.error ?? '');
        return;
      }
      let metricName = '';
      if (computed.replicas > desired) {
        desired = computed.replicas;
        metricName = computed.metric;
      }
      if (desired > currentReplicas) reason = `${metricName} above target`;
      if (desired < currentReplicas) reason = 'All metrics below target';
      const normalized: Normalized =
        spec.behavior === undefined
          ? this.history.normalize(key, currentReplicas, desired, minReplicas, spec.maxReplicas)
          : this.history.normalizeWithBehavior(key, currentReplicas, desired, minReplicas, spec.maxReplicas, spec.behavior);
      this.setCondition(hpa, { type: HPA_ABLE_TO_SCALE, status: 'True', ...normalized.ableToScale });
      this.setCondition(hpa, { type: HPA_SCALING_LIMITED, status: normalized.limited ? 'True' : 'False', ...normalized.limit });
      desired = normalized.replicas;
      rescale = desired !== currentReplicas;
    }
    if (rescale) {
      try {
        await this.targets.update(mapping, namespace, ref.name, { ...scale, spec: { ...scale.spec, replicas: desired } });
      } catch (error) {
        const message = errorText(error);
        void this.events.warning(hpa, 'FailedRescale', `New size: ${desired}; reason: ${reason}; error: ${message}`);
        this.setCondition(hpa, {
          type: HPA_ABLE_TO_SCALE,
          status: 'False',
          reason: 'FailedUpdateScale',
          message: `the HPA controller was unable to update the target scale: ${message}`,
        });
        this.setStatus(hpa, currentReplicas, hpa.status?.desiredReplicas ?? 0, statuses, false);
        return;
      }
      this.setCondition(hpa, {
        type: HPA_ABLE_TO_SCALE,
        status: 'True',
        reason: 'SucceededRescale',
        message: `the HPA controller was able to update the target scale to ${desired}`,
      });
      void this.events.normal(hpa, 'SuccessfulRescale', `New size: ${desired}; reason: ${reason}`);
      this.history.recordScale(key, spec.behavior, currentReplicas, desired);
    } else {
      desired = currentReplicas;
    }
    this.setStatus(hpa, currentReplicas, desired, statuses, rescale);
  }

  /** computeReplicasForMetrics: the largest proposal; -1 when no metric (or, scaling down, not every metric) could be read. */
  private async computeReplicasForMetrics(
    hpa: HorizontalPodAutoscaler,
    key: string,
    scale: Scale,
    cache: CacheReader,
  ): Promise<{ replicas: number; metric: string; statuses: MetricStatus[]; error?: string }> {
    const selector = this.selectorOf(hpa, key, scale, cache);
    if (typeof selector === 'string') return { replicas: -1, metric: '', statuses: [], error: selector };
    const namespace = hpa.metadata?.namespace ?? '';
    const pods = cache.list(BUILTIN_RESOURCES.pods, { namespace, labelSelector: selector });
    const specReplicas = scale.spec?.replicas ?? 0;
    const specs = hpa.spec?.metrics ?? [];
    const statuses: MetricStatus[] = specs.map(() => ({ type: '' }));
    let replicas = 0;
    let metric = '';
    let invalid = 0;
    let firstError: { error: string; condition: Condition } | undefined;
    for (const [i, spec] of specs.entries()) {
      const proposal = await this.computeReplicasForMetric(hpa, spec, specReplicas, selector, pods);
      if ('error' in proposal) {
        if (invalid === 0) firstError = proposal;
        invalid++;
        continue;
      }
      statuses[i] = proposal.status;
      if (replicas === 0 || proposal.replicas > replicas) {
        replicas = proposal.replicas;
        metric = proposal.metric;
      }
    }
    const error = firstError && `invalid metrics (${invalid} invalid out of ${specs.length}), first error is: ${firstError.error}`;
    if (firstError && (invalid >= specs.length || replicas < specReplicas)) {
      this.setCondition(hpa, { ...firstError.condition });
      return { replicas: -1, metric: '', statuses, error };
    }
    this.setCondition(hpa, {
      type: HPA_SCALING_ACTIVE,
      status: 'True',
      reason: 'ValidMetricFound',
      message: `the HPA was able to successfully calculate a replica count from ${metric}`,
    });
    return { replicas, metric, statuses, error };
  }

  /** validateAndParseSelector: the scale's selector, or the message of why it cannot be used. */
  private selectorOf(hpa: HorizontalPodAutoscaler, key: string, scale: Scale, cache: CacheReader): LabelQuery | string {
    const text = scale.status?.selector ?? '';
    if (text === '') {
      void this.events.warning(hpa, 'SelectorRequired', 'selector is required');
      this.setCondition(hpa, { type: HPA_SCALING_ACTIVE, status: 'False', reason: 'InvalidSelector', message: "the HPA target's scale is missing a selector" });
      return 'selector is required';
    }
    let selector: LabelQuery;
    try {
      selector = LabelQuery.parse(text);
    } catch (error) {
      const message = `couldn't convert selector into a corresponding internal selector object: ${errorText(error)}`;
      void this.events.warning(hpa, 'InvalidSelector', message);
      this.setCondition(hpa, { type: HPA_SCALING_ACTIVE, status: 'False', reason: 'InvalidSelector', message });
      return message;
    }
    this.selectors.set(key, selector);
    const namespace = hpa.metadata?.namespace ?? '';
    const pods = cache.list(BUILTIN_RESOURCES.pods, { namespace, labelSelector: selector });
    const controlling = [...this.selectors.entries()]
      .filter(
        ([other]) =>
          other.startsWith(`${namespace}/`) && cache.get(BUILTIN_RESOURCES.horizontalPodAutoscalers, { namespace, name: other.slice(namespace.length + 1) }),
      )
      .filter(([, query]) => pods.some((p) => query.matches(p.metadata?.labels)))
      .map(([other]) => other);
    if (controlling.length > 1) {
      const message = `pods by selector ${text} are controlled by multiple HPAs: [${controlling.sort().join(' ')}]`;
      void this.events.warning(hpa, 'AmbiguousSelector', message);
      this.setCondition(hpa, { type: HPA_SCALING_ACTIVE, status: 'False', reason: 'AmbiguousSelector', message });
      return message;
    }
    return selector;
  }

  /** computeReplicasForMetric for one metric of the spec. */
  private async computeReplicasForMetric(
    hpa: HorizontalPodAutoscaler,
    spec: MetricSpec,
    specReplicas: number,
    selector: LabelQuery,
    pods: Pod[],
  ): Promise<Proposal> {
    const unable = (reason: string, error: string): Proposal => {
      void this.events.warning(hpa, reason, error);
      return { error, condition: { type: HPA_SCALING_ACTIVE, status: 'False', reason, message: `the HPA was unable to compute the replica count: ${error}` } };
    };
    const namespace = hpa.metadata?.namespace ?? '';
    switch (spec.type) {
      case 'Resource':
      case 'ContainerResource': {
        const container = spec.type === 'ContainerResource' ? (spec.containerResource?.container ?? '') : '';
        const source = spec.type === 'Resource' ? spec.resource : spec.containerResource;
        const reason = spec.type === 'Resource' ? 'FailedGetResourceMetric' : 'FailedGetContainerResourceMetric';
        const what = spec.type === 'Resource' ? `failed to get ${source?.name} resource metric value` : `failed to get ${container} container metric value`;
        if (source === undefined) return unable(reason, `${what}: invalid metric source`);
        try {
          return await this.resourceProposal(spec.type, source.name, source.target, container, namespace, specReplicas, selector, pods);
        } catch (error) {
          const proposal = unable(reason, errorText(error));
          return 'error' in proposal ? { ...proposal, error: `${what}: ${proposal.error}` } : proposal;
        }
      }
      case 'Pods':
        return unable('FailedGetPodsMetric', `unable to get metric ${spec.pods?.metric?.name ?? ''}: ${NO_CUSTOM_METRICS}`);
      case 'Object':
        return unable(
          'FailedGetObjectMetric',
          `unable to get metric ${spec.object?.metric?.name ?? ''}: ${spec.object?.describedObject?.kind ?? ''} on ${namespace} ${spec.object?.describedObject?.name ?? ''}/${NO_CUSTOM_METRICS}`,
        );
      case 'External':
        return unable('FailedGetExternalMetric', `unable to get external metric ${namespace}/${spec.external?.metric?.name ?? ''}: ${NO_EXTERNAL_METRICS}`);
      default:
        return unable('InvalidMetricSourceType', `unknown metric source type ${JSON.stringify(spec.type)}`);
    }
  }

  /** computeStatusForResourceMetricGeneric: a utilization or an average value of a resource (of one container). */
  private async resourceProposal(
    type: 'Resource' | 'ContainerResource',
    resource: string,
    target: { averageUtilization?: number; averageValue?: string | number },
    container: string,
    namespace: string,
    currentReplicas: number,
    selector: LabelQuery,
    pods: Pod[],
  ): Promise<Proposal> {
    let items;
    try {
      items = await this.metrics.listPodMetrics(namespace, selector.toString());
    } catch (error) {
      throw new Error(`unable to get metrics for resource ${resource}: unable to fetch metrics from resource metrics API: ${errorText(error)}`);
    }
    let read;
    try {
      read = resourceMetricsOf(items, resource, container);
    } catch (error) {
      throw new Error(`unable to get metrics for resource ${resource}: ${errorText(error)}`);
    }
    const statusOf = (current: { averageValue: string; averageUtilization?: number }): MetricStatus =>
      type === 'Resource' ? { type, resource: { name: resource, current } } : { type, containerResource: { name: resource, container, current } };
    if (target.averageValue !== undefined) {
      const targetUsage = quantityMilliValue(target.averageValue) ?? 0;
      let result;
      try {
        result = this.calculator.rawResourceReplicas(currentReplicas, targetUsage, resource, pods, read.metrics);
      } catch (error) {
        throw new Error(`failed to get ${resource} usage: ${errorText(error)}`);
      }
      return { replicas: result.replicas, metric: `${resource} resource`, status: statusOf({ averageValue: quantityFromMilli(result.usage) }) };
    }
    if (target.averageUtilization === undefined) {
      throw new Error('invalid resource metric source: neither an average utilization target nor an average value (usage) target was set');
    }
    let result;
    try {
      result = this.calculator.resourceReplicas(currentReplicas, target.averageUtilization, resource, pods, read.metrics, container);
    } catch (error) {
      throw new Error(`failed to get ${resource} utilization: ${errorText(error)}`);
    }
    const metric =
      type === 'Resource' ? `${resource} resource utilization (percentage of request)` : `${resource} container resource utilization (percentage of request)`;
    return {
      replicas: result.replicas,
      metric,
      status: statusOf({ averageValue: quantityFromMilli(result.rawUtilization), averageUtilization: result.utilization }),
    };
  }

  /** setStatus: a new status with the counts and metrics; lastScaleTime when the scale was written. */
  private setStatus(hpa: HorizontalPodAutoscaler, current: number, desired: number, metrics: MetricStatus[] | undefined, rescaled: boolean): void {
    const previous = hpa.status;
    hpa.status = {
      ...(previous?.observedGeneration !== undefined ? { observedGeneration: previous.observedGeneration } : {}),
      ...(rescaled ? { lastScaleTime: rfc3339(this.options.now()) } : previous?.lastScaleTime ? { lastScaleTime: previous.lastScaleTime } : {}),
      ...(current !== 0 ? { currentReplicas: current } : {}),
      desiredReplicas: desired,
      ...(metrics !== undefined && metrics.length > 0 ? { currentMetrics: metrics } : {}),
      ...(previous?.conditions ? { conditions: previous.conditions } : {}),
    };
  }

  /** setConditionInList: the transition time moves only when the status changes. */
  private setCondition(hpa: HorizontalPodAutoscaler, condition: Condition): void {
    const status = (hpa.status ??= { desiredReplicas: 0 });
    const conditions = (status.conditions ??= []);
    let existing = conditions.find((c) => c.type === condition.type);
    if (existing === undefined) {
      existing = { type: condition.type, status: condition.status };
      conditions.push(existing);
    }
    if (existing.status !== condition.status || existing.lastTransitionTime === undefined) existing.lastTransitionTime = rfc3339(this.options.now());
    existing.status = condition.status;
    existing.reason = condition.reason;
    existing.message = condition.message;
  }
}

const NO_CUSTOM_METRICS = 'the custom metrics API (custom.metrics.k8s.io) is not served by this control plane';
const NO_EXTERNAL_METRICS = 'the external metrics API (external.metrics.k8s.io) is not served by this control plane';

/** A quantity of thousandths as Kubernetes' NewMilliQuantity(...).String() writes it (`70m`, `1`). */
function quantityFromMilli(milli: number): string {
  return canonicalQuantity(`${milli}m`) ?? `${milli}m`;
}

function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
