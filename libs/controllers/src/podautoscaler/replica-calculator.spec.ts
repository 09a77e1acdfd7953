import type { Pod } from '@svc/api';
import { ReplicaCalculator } from './replica-calculator';
import { resourceMetricsOf, type PodMetricsInfo } from './resource-metrics';
import type { PodMetrics } from './pod-metrics-source';

const NOW = Date.parse('2026-01-01T12:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const settings = { tolerance: 0.1, cpuInitializationPeriodMs: 120_000, initialReadinessDelayMs: 10_000 };
const calculator = () => new ReplicaCalculator(settings, () => NOW);

interface PodShape {
  ready?: 'True' | 'False';
  phase?: string;
  request?: string;
  /** When the pod started, ms before NOW (long ago by default). */
  startedAgo?: number;
  /** When its Ready condition last changed, ms before NOW. */
  readyAgo?: number;
  deleting?: boolean;
  containers?: Array<{ name: string; request?: string }>;
}

function pods(shapes: PodShape[]): Pod[] {
  return shapes.map((s, i) => ({
    metadata: { name: `p${i}`, namespace: 'ns', ...(s.deleting ? { deletionTimestamp: iso(NOW) } : {}) },
    spec: {
      containers: (s.containers ?? [{ name: 'c', request: s.request ?? '1' }]).map((c) => ({
        name: c.name,
        image: 'busybox',
        ...(c.request !== undefined ? { resources: { requests: { cpu: c.request, memory: c.request } } } : {}),
      })),
    },
    status: {
      phase: s.phase ?? 'Running',
      startTime: iso(NOW - (s.startedAgo ?? 3_600_000)),
      conditions: [{ type: 'Ready', status: s.ready ?? 'True', lastTransitionTime: iso(NOW - (s.readyAgo ?? 3_000_000)) }],
    },
  })) as Pod[];
}

/** Usage in thousandths per pod (undefined: no metrics for it), measured now over 30 s. */
function metrics(levels: Array<number | undefined>): PodMetricsInfo {
  const info: PodMetricsInfo = new Map();
  levels.forEach((value, i) => value !== undefined && info.set(`p${i}`, { timestampMs: NOW, windowMs: 30_000, value }));
  return info;
}

describe('the replica calculator, as Kubernetes’ replica_calculator', () => {
  it('scales up on the ready pods’ utilization: 3 pods at 50% of a 30% target want 5', () => {
    expect(calculator().resourceReplicas(3, 30, 'cpu', pods([{}, {}, {}]), metrics([300, 500, 700]), '')).toEqual({
      replicas: 5,
      utilization: 50,
      rawUtilization: 500,
    });
  });

  it('scales down: 5 pods at 28% of a 50% target want 3', () => {
    const result = calculator().resourceReplicas(5, 50, 'cpu', pods([{}, {}, {}, {}, {}]), metrics([100, 300, 500, 250, 250]), '');
    expect(result).toEqual({ replicas: 3, utilization: 28, rawUtilization: 280 });
  });

  it('changes nothing within the tolerance', () => {
    const result = calculator().resourceReplicas(
      3,
      100,
      'cpu',
      pods([{ request: '900m' }, { request: '1' }, { request: '1100m' }]),
      metrics([1010, 1030, 1020]),
      '',
    );
    expect(result.replicas).toBe(3);
    expect(result.utilization).toBe(102);
  });

  it('counts unready pods as using nothing on a scale up', () => {
    const starting = { ready: 'False' as const, startedAgo: 600_000, readyAgo: 595_000 };
    const result = calculator().resourceReplicas(3, 30, 'cpu', pods([starting, {}, {}]), metrics([300, 500, 700]), '');
    // Ready pods alone: 60%, twice the target; with the unready one at 0%: 40%, so 4 rather than 6.
    expect(result).toEqual({ replicas: 4, utilization: 60, rawUtilization: 600 });
  });

  it('leaves pending pods out, and pods being deleted or failed', () => {
    const shapes: PodShape[] = [{}, {}, { phase: 'Pending' }, { deleting: true }, { phase: 'Failed' }];
    expect(calculator().resourceReplicas(2, 50, 'cpu', pods(shapes), metrics([500, 500, undefined, 900, 900]), '')).toEqual({
      replicas: 2,
      utilization: 50,
      rawUtilization: 500,
    });
    expect(calculator().resourceReplicas(2, 50, 'cpu', pods(shapes), metrics([250, 250, undefined, 900, 900]), '').replicas).toBe(1);
  });

  it('counts a pod without metrics as using all it requests when scaling down, and nothing when scaling up', () => {
    // Down: 3 pods at 10% of a 50% target, the 4th taken at 100%: 32.5%, so 3, not 1.
    expect(calculator().resourceReplicas(4, 50, 'cpu', pods([{}, {}, {}, {}]), metrics([100, 100, 100, undefined]), '').replicas).toBe(3);
    // Up: 3 pods at 90% of a 50% target, the 4th taken at 0%: 67.5%, so 6.
    expect(calculator().resourceReplicas(4, 50, 'cpu', pods([{}, {}, {}, {}]), metrics([900, 900, 900, undefined]), '').replicas).toBe(6);
  });

  it('keeps the count when the pods without metrics would turn the direction', () => {
    // Ready pods at 60% of 50% (up), but the missing pod taken at 0% brings it to 45% (down): no change.
    expect(calculator().resourceReplicas(4, 50, 'cpu', pods([{}, {}, {}, {}]), metrics([600, 600, 600, undefined]), '').replicas).toBe(4);
  });

  it('ignores a CPU sample taken while a pod starts: before a whole window since it became ready', () => {
    const starting = { startedAgo: 60_000, readyAgo: 20_000 };
    // The metric window (30 s) started before the pod was ready 20 s ago: its sample is left out, and the
    // pod counted at 0% on this scale up, which brings the ratio to the target: no change.
    const result = calculator().resourceReplicas(2, 50, 'cpu', pods([{}, starting]), metrics([1000, 2000]), '');
    expect(result).toEqual({ replicas: 2, utilization: 100, rawUtilization: 1000 });
    // Memory samples are never held back: 150% of 50% on 2 pods is 6.
    expect(calculator().resourceReplicas(2, 50, 'memory', pods([{}, starting]), metrics([1000, 2000]), '').replicas).toBe(6);
  });

  it('past the initialization period, leaves out a pod never ready since its start (within the initial readiness delay)', () => {
    const neverReady = { ready: 'False' as const, startedAgo: 600_000, readyAgo: 595_000 };
    expect(calculator().resourceReplicas(2, 50, 'cpu', pods([{}, neverReady]), metrics([500, 100]), '')).toMatchObject({ utilization: 50 });
    // A pod that was ready and then failed its probe still counts.
    const wasReady = { ready: 'False' as const, startedAgo: 600_000, readyAgo: 60_000 };
    expect(calculator().resourceReplicas(2, 50, 'cpu', pods([{}, wasReady]), metrics([500, 100]), '')).toMatchObject({ utilization: 30 });
  });

  it('reads one container of each pod for a container resource metric', () => {
    const twoContainers = {
      containers: [
        { name: 'app', request: '500m' },
        { name: 'sidecar', request: '500m' },
      ],
    };
    const items: PodMetrics[] = ['p0', 'p1'].map((name) => ({
      metadata: { name, namespace: 'ns' },
      timestamp: iso(NOW),
      window: '30s',
      containers: [
        { name: 'app', usage: { cpu: '500m' } },
        { name: 'sidecar', usage: { cpu: '10m' } },
      ],
    }));
    const { metrics: read } = resourceMetricsOf(items, 'cpu', 'app');
    expect(calculator().resourceReplicas(2, 50, 'cpu', pods([twoContainers, twoContainers]), read, 'app')).toEqual({
      replicas: 4,
      utilization: 100,
      rawUtilization: 500,
    });
    expect(() => resourceMetricsOf(items, 'cpu', 'web')).toThrow('container web not present in metrics for pod ns/p0');
  });

  it('says which container lacks a request, and when nothing was measured', () => {
    expect(() => calculator().resourceReplicas(1, 50, 'cpu', pods([{ containers: [{ name: 'c' }] }]), metrics([100]), '')).toThrow(
      'missing request for cpu in container c of Pod p0',
    );
    expect(() => calculator().resourceReplicas(1, 50, 'cpu', pods([{ phase: 'Pending' }]), metrics([100]), '')).toThrow(
      'did not receive metrics for targeted pods (pods might be unready)',
    );
    expect(() => calculator().resourceReplicas(1, 50, 'cpu', [], metrics([]), '')).toThrow('no pods returned by selector while calculating replica count');
    expect(() => resourceMetricsOf([], 'cpu', '')).toThrow('no metrics returned from resource metrics API');
  });

  it('scales on an average value: 3 pods averaging 300m of a 150m target want 6', () => {
    expect(calculator().rawResourceReplicas(3, 150, 'cpu', pods([{}, {}, {}]), metrics([200, 300, 400]))).toEqual({ replicas: 6, usage: 300 });
    expect(calculator().rawResourceReplicas(3, 290, 'cpu', pods([{}, {}, {}]), metrics([200, 300, 400])).replicas).toBe(3);
  });
});
