import type { HorizontalPodAutoscalerBehavior, HPAScalingRules } from '@svc/api';

/** Kubernetes' scaleUpLimitFactor and scaleUpLimitMinimum: without a behavior, at most double (or 4). */
const SCALE_UP_LIMIT_FACTOR = 2;
const SCALE_UP_LIMIT_MINIMUM = 4;

interface Recommendation {
  replicas: number;
  at: number;
}

interface ScaleEvent {
  /** Replicas added (or removed), never negative. */
  change: number;
  at: number;
  outdated: boolean;
}

/** A limit reached (or none), with Kubernetes' reason and message for the ScalingLimited condition. */
export interface Normalized {
  replicas: number;
  /** Reason and message of AbleToScale: ReadyForNewScale or a stabilization. */
  ableToScale: { reason: string; message: string };
  /** ScalingLimited: true when the count was bounded. */
  limited: boolean;
  limit: { reason: string; message: string };
}

const WITHIN_RANGE = { reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' };
const READY = { reason: 'ReadyForNewScale', message: 'recommended size matches current size' };

/**
 * What the horizontal-pod-autoscaler controller remembers of each autoscaler between syncs (in memory,
 * as Kubernetes' controller does): its recent recommendations, for the stabilization windows, and its
 * recent scale events, for the rate policies. Every time is read from `now`, which tests move by hand.
 */
export class ScalingHistory {
  private readonly recommendations = new Map<string, Recommendation[]>();
  private readonly scaleUpEvents = new Map<string, ScaleEvent[]>();
  private readonly scaleDownEvents = new Map<string, ScaleEvent[]>();

  constructor(
    /** `--horizontal-pod-autoscaler-downscale-stabilization`, in ms. */
    private readonly downscaleStabilizationMs: number,
    private readonly now: () => number,
  ) {}

  /** An autoscaler gone: its memory goes too. */
  forget(key: string): void {
    this.recommendations.delete(key);
    this.scaleUpEvents.delete(key);
    this.scaleDownEvents.delete(key);
  }

  /** recordInitialRecommendation: the first sync remembers the current count. */
  recordInitial(key: string, currentReplicas: number): void {
    if (!this.recommendations.has(key)) this.recommendations.set(key, [{ replicas: currentReplicas, at: this.now() }]);
  }

  /** normalizeDesiredReplicas, for an autoscaler without behavior: the downscale window, then min/max and at most double. */
  normalize(key: string, currentReplicas: number, desired: number, minReplicas: number, maxReplicas: number): Normalized {
    const stabilized = this.stabilize(key, desired);
    const ableToScale =
      stabilized !== desired
        ? { reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' }
        : READY;
    const scaleUpLimit = Math.max(SCALE_UP_LIMIT_FACTOR * currentReplicas, SCALE_UP_LIMIT_MINIMUM);
    let maximum = maxReplicas;
    let possible = { reason: 'TooManyReplicas', message: 'the desired replica count is more than the maximum replica count' };
    if (maxReplicas > scaleUpLimit) {
      maximum = scaleUpLimit;
      possible = { reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' };
    }
    let replicas = stabilized;
    let limit = WITHIN_RANGE;
    if (stabilized < minReplicas) {
      replicas = minReplicas;
      limit = { reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' };
    } else if (stabilized > maximum) {
      replicas = maximum;
      limit = possible;
    }
    return { replicas, ableToScale, limited: replicas !== stabilized, limit };
  }

  /**
   * normalizeDesiredReplicasWithBehaviors: the stabilization windows of both directions, then the
   * rate policies over the scale events of their periods, then min/max. `behavior` has Kubernetes'
   * defaults filled in; a scale down without a window takes the flag's.
   */
  normalizeWithBehavior(
    key: string,
    currentReplicas: number,
    desired: number,
    minReplicas: number,
    maxReplicas: number,
    behavior: HorizontalPodAutoscalerBehavior,
  ): Normalized {
    const up = behavior.scaleUp ?? {};
    const down = { ...(behavior.scaleDown ?? {}) };
    down.stabilizationWindowSeconds ??= Math.trunc(this.downscaleStabilizationMs / 1000);
    const stabilized = this.stabilizeWithBehavior(key, currentReplicas, desired, up.stabilizationWindowSeconds ?? 0, down.stabilizationWindowSeconds);
    const ableToScale = stabilized.replicas !== desired ? { reason: stabilized.reason, message: stabilized.message } : READY;
    const rated = this.applyRate(key, currentReplicas, stabilized.replicas, minReplicas, maxReplicas, up, down);
    return { replicas: rated.replicas, ableToScale, limited: rated.replicas !== stabilized.replicas, limit: rated.limit };
  }

  /** storeScaleEvent: remembered only for autoscalers with a behavior, whose policies read them. */
  recordScale(key: string, behavior: HorizontalPodAutoscalerBehavior | undefined, previous: number, next: number): void {
    if (behavior === undefined) return;
    const upward = next > previous;
    const rules = upward ? behavior.scaleUp : behavior.scaleDown;
    const events = upward ? this.scaleUpEvents : this.scaleDownEvents;
    const list = events.get(key) ?? [];
    const cutoff = this.now() - longestPeriodSeconds(rules) * 1000;
    for (const event of list) if (event.at < cutoff) event.outdated = true;
    const fresh: ScaleEvent = { change: Math.abs(next - previous), at: this.now(), outdated: false };
    // An outdated event's slot is reused (the last one found), as Kubernetes does.
    const slot = list.map((e) => e.outdated).lastIndexOf(true);
    if (slot >= 0) list[slot] = fresh;
    else list.push(fresh);
    events.set(key, list);
  }

  /** stabilizeRecommendation: the highest recommendation of the downscale window, this one recorded. */
  private stabilize(key: string, desired: number): number {
    const now = this.now();
    const cutoff = now - this.downscaleStabilizationMs;
    const list = this.recommendations.get(key) ?? [];
    let max = desired;
    let oldIndex = -1;
    list.forEach((rec, i) => {
      if (rec.at < cutoff) oldIndex = i;
      else if (rec.replicas > max) max = rec.replicas;
    });
    if (oldIndex >= 0) list[oldIndex] = { replicas: desired, at: now };
    else list.push({ replicas: desired, at: now });
    this.recommendations.set(key, list);
    return max;
  }

  /** stabilizeRecommendationWithBehaviors: held between the lowest of the up window and the highest of the down window. */
  private stabilizeWithBehavior(
    key: string,
    current: number,
    desired: number,
    upWindowSeconds: number,
    downWindowSeconds: number,
  ): { replicas: number; reason: string; message: string } {
    const now = this.now();
    const upCutoff = now - upWindowSeconds * 1000;
    const downCutoff = now - downWindowSeconds * 1000;
    let upRecommendation = desired;
    let downRecommendation = desired;
    let oldIndex = -1;
    const list = this.recommendations.get(key) ?? [];
    list.forEach((rec, i) => {
      if (rec.at > upCutoff) upRecommendation = Math.min(rec.replicas, upRecommendation);
      if (rec.at > downCutoff) downRecommendation = Math.max(rec.replicas, downRecommendation);
      if (rec.at < upCutoff && rec.at < downCutoff) oldIndex = i;
    });
    let replicas = current;
    if (replicas < upRecommendation) replicas = upRecommendation;
    if (replicas > downRecommendation) replicas = downRecommendation;
    if (oldIndex >= 0) list[oldIndex] = { replicas: desired, at: now };
    else list.push({ replicas: desired, at: now });
    this.recommendations.set(key, list);
    return desired >= current
      ? { replicas, reason: 'ScaleUpStabilized', message: 'recent recommendations were lower than current one, applying the lowest recent recommendation' }
      : { replicas, reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' };
  }

  /** convertDesiredReplicasWithBehaviorRate. */
  private applyRate(
    key: string,
    current: number,
    desired: number,
    minReplicas: number,
    maxReplicas: number,
    up: HPAScalingRules,
    down: HPAScalingRules,
  ): { replicas: number; limit: { reason: string; message: string } } {
    const ups = this.scaleUpEvents.get(key) ?? [];
    const downs = this.scaleDownEvents.get(key) ?? [];
    if (desired > current) {
      let scaleUpLimit = this.scaleUpLimit(current, ups, downs, up);
      if (scaleUpLimit < current) scaleUpLimit = current;
      let maximum = maxReplicas;
      let limit = { reason: 'TooManyReplicas', message: 'the desired replica count is more than the maximum replica count' };
      if (maximum > scaleUpLimit) {
        maximum = scaleUpLimit;
        limit = { reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' };
      }
      if (desired > maximum) return { replicas: maximum, limit };
    } else if (desired < current) {
      let scaleDownLimit = this.scaleDownLimit(current, ups, downs, down);
      if (scaleDownLimit > current) scaleDownLimit = current;
      let minimum = minReplicas;
      let limit = { reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' };
      if (minimum < scaleDownLimit) {
        minimum = scaleDownLimit;
        limit = { reason: 'ScaleDownLimit', message: 'the desired replica count is decreasing faster than the maximum scale rate' };
      }
      if (desired < minimum) return { replicas: minimum, limit };
    }
    return { replicas: desired, limit: WITHIN_RANGE };
  }

  /** calculateScaleUpLimitWithScalingRules: the most replicas the policies allow now (Max: the largest proposal, Min: the smallest). */
  private scaleUpLimit(current: number, ups: readonly ScaleEvent[], downs: readonly ScaleEvent[], rules: HPAScalingRules): number {
    const select = rules.selectPolicy ?? 'Max';
    if (select === 'Disabled') return current;
    let result = select === 'Min' ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER;
    for (const policy of rules.policies ?? []) {
      const start = current - this.changeWithin(policy.periodSeconds, ups) + this.changeWithin(policy.periodSeconds, downs);
      const proposed = policy.type === 'Pods' ? start + policy.value : Math.ceil(start * (1 + policy.value / 100));
      result = select === 'Min' ? Math.min(result, proposed) : Math.max(result, proposed);
    }
    return result;
  }

  /** calculateScaleDownLimitWithBehaviors: the fewest replicas the policies allow now. */
  private scaleDownLimit(current: number, ups: readonly ScaleEvent[], downs: readonly ScaleEvent[], rules: HPAScalingRules): number {
    const select = rules.selectPolicy ?? 'Max';
    if (select === 'Disabled') return current;
    let result = select === 'Min' ? Number.MIN_SAFE_INTEGER : Number.MAX_SAFE_INTEGER;
    for (const policy of rules.policies ?? []) {
      const start = current - this.changeWithin(policy.periodSeconds, ups) + this.changeWithin(policy.periodSeconds, downs);
      const proposed = policy.type === 'Pods' ? start - policy.value : Math.trunc(start * (1 - policy.value / 100));
      result = select === 'Min' ? Math.max(result, proposed) : Math.min(result, proposed);
    }
    return result;
  }

  /** getReplicasChangePerPeriod: replicas changed by the events of the last `periodSeconds`. */
  private changeWithin(periodSeconds: number, events: readonly ScaleEvent[]): number {
    const cutoff = this.now() - periodSeconds * 1000;
    return events.filter((e) => e.at > cutoff).reduce((sum, e) => sum + e.change, 0);
  }
}

function longestPeriodSeconds(rules: HPAScalingRules | undefined): number {
  return Math.max(0, ...(rules?.policies ?? []).map((p) => p.periodSeconds));
}
