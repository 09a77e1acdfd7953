import { defaultHorizontalPodAutoscalerV2, type HorizontalPodAutoscaler, type HorizontalPodAutoscalerBehavior } from '@svc/api';
import { ScalingHistory } from './scaling-history';

/** A clock moved by hand: the windows and periods are read from it, never from the wall. */
function clock() {
  let now = Date.parse('2026-01-01T12:00:00Z');
  return { now: () => now, advance: (seconds: number) => (now += seconds * 1000) };
}

/** A behavior with Kubernetes' defaults filled in, as the API server stores it. */
function behavior(given: HorizontalPodAutoscalerBehavior): HorizontalPodAutoscalerBehavior {
  const hpa = { spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 100, behavior: given } } as HorizontalPodAutoscaler;
  defaultHorizontalPodAutoscalerV2(hpa);
  return hpa.spec!.behavior!;
}

describe('scaling without a behavior (the controller’s flags)', () => {
  it('holds a scale down at the highest recommendation of the downscale stabilization window', () => {
    const t = clock();
    const history = new ScalingHistory(300_000, t.now);
    history.recordInitial('ns/web', 5);
    expect(history.normalize('ns/web', 5, 2, 1, 10)).toMatchObject({ replicas: 5, ableToScale: { reason: 'ScaleDownStabilized' }, limited: false });
    t.advance(200);
    expect(history.normalize('ns/web', 5, 3, 1, 10).replicas).toBe(5);
    // Past the window, the highest recommendation left is the one 100 s old.
    t.advance(101);
    expect(history.normalize('ns/web', 5, 2, 1, 10)).toMatchObject({ replicas: 3, ableToScale: { reason: 'ScaleDownStabilized' } });
    t.advance(200);
    expect(history.normalize('ns/web', 3, 2, 1, 10)).toMatchObject({ replicas: 2, ableToScale: { reason: 'ReadyForNewScale' } });
  });

  it('at most doubles (or goes to 4), and keeps within min and max', () => {
    const history = new ScalingHistory(0, clock().now);
    expect(history.normalize('a', 1, 10, 1, 20)).toMatchObject({
      replicas: 4,
      limited: true,
      limit: { reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' },
    });
    expect(history.normalize('b', 5, 10, 1, 8)).toMatchObject({ replicas: 8, limited: true, limit: { reason: 'TooManyReplicas' } });
    expect(history.normalize('c', 3, 1, 2, 8)).toMatchObject({
      replicas: 2,
      limited: true,
      limit: { reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' },
    });
    expect(history.normalize('d', 3, 5, 1, 8)).toMatchObject({ replicas: 5, limited: false, limit: { reason: 'DesiredWithinRange' } });
  });
});

describe('scaling with a behavior', () => {
  it('by default scales up by the larger of 4 pods and 100% each 15 s', () => {
    const t = clock();
    const history = new ScalingHistory(300_000, t.now);
    const rules = behavior({});
    expect(history.normalizeWithBehavior('ns/web', 10, 50, 1, 100, rules)).toMatchObject({ replicas: 20, limited: true, limit: { reason: 'ScaleUpLimit' } });
    history.recordScale('ns/web', rules, 10, 20);
    // Within the same 15 s the 10 added count against the period: no more yet.
    t.advance(5);
    expect(history.normalizeWithBehavior('ns/web', 20, 50, 1, 100, rules).replicas).toBe(20);
    t.advance(11);
    expect(history.normalizeWithBehavior('ns/web', 20, 50, 1, 100, rules).replicas).toBe(40);
    // From 2 replicas, 4 pods is the larger change.
    expect(new ScalingHistory(0, t.now).normalizeWithBehavior('x', 2, 50, 1, 100, rules).replicas).toBe(6);
  });

  it('takes the smaller change with selectPolicy Min, and none with Disabled', () => {
    const t = clock();
    const min = behavior({
      scaleUp: {
        selectPolicy: 'Min',
        policies: [
          { type: 'Pods', value: 4, periodSeconds: 15 },
          { type: 'Percent', value: 100, periodSeconds: 15 },
        ],
      },
    });
    expect(new ScalingHistory(0, t.now).normalizeWithBehavior('a', 10, 50, 1, 100, min).replicas).toBe(14);
    const disabled = behavior({ scaleDown: { selectPolicy: 'Disabled' } });
    expect(new ScalingHistory(0, t.now).normalizeWithBehavior('b', 10, 2, 1, 100, disabled)).toMatchObject({
      replicas: 10,
      limit: { reason: 'ScaleDownLimit' },
    });
  });

  it('scales down no faster than its policies, over its own window', () => {
    const t = clock();
    const history = new ScalingHistory(300_000, t.now);
    const rules = behavior({ scaleDown: { stabilizationWindowSeconds: 0, policies: [{ type: 'Percent', value: 50, periodSeconds: 60 }] } });
    expect(history.normalizeWithBehavior('ns/web', 10, 1, 1, 100, rules)).toMatchObject({
      replicas: 5,
      limit: { reason: 'ScaleDownLimit', message: 'the desired replica count is decreasing faster than the maximum scale rate' },
    });
    history.recordScale('ns/web', rules, 10, 5);
    t.advance(30);
    expect(history.normalizeWithBehavior('ns/web', 5, 1, 1, 100, rules).replicas).toBe(5);
    t.advance(31);
    expect(history.normalizeWithBehavior('ns/web', 5, 1, 1, 100, rules).replicas).toBe(2);
  });

  it('without a scale-down window of its own, takes the flag’s; a scale-up window holds the lowest recent recommendation', () => {
    const t = clock();
    const history = new ScalingHistory(60_000, t.now);
    const rules = behavior({ scaleUp: { stabilizationWindowSeconds: 30 } });
    history.recordInitial('ns/web', 4);
    expect(history.normalizeWithBehavior('ns/web', 4, 2, 1, 100, rules)).toMatchObject({ replicas: 4, ableToScale: { reason: 'ScaleDownStabilized' } });
    t.advance(61);
    expect(history.normalizeWithBehavior('ns/web', 4, 2, 1, 100, rules).replicas).toBe(2);
    // Up: the 2 recommended a moment ago holds the count at 2 for the 30 s window.
    t.advance(1);
    expect(history.normalizeWithBehavior('ns/web', 2, 8, 1, 100, rules)).toMatchObject({
      replicas: 2,
      ableToScale: { reason: 'ScaleUpStabilized', message: 'recent recommendations were lower than current one, applying the lowest recent recommendation' },
    });
    t.advance(31);
    expect(history.normalizeWithBehavior('ns/web', 2, 8, 1, 100, rules).replicas).toBe(6);
  });
});
