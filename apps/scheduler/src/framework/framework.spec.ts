import type { Node, Pod } from '@svc/api';
import { SchedulerCache } from '../cache/scheduler-cache';
import { podInfoOf } from '../cache/pod-info';
import { DEFAULT_FILTERS, DEFAULT_SCORERS } from '../plugins/default-plugins';
import { FitError, NoNodesAvailableError, fitErrorMessage } from './fit-error';
import { Framework, numFeasibleNodesToFind } from './framework';
import { CycleState } from './plugin';
import { PodNominator } from '../queue/pod-nominator';

function node(
  name: string,
  extra: { labels?: Record<string, string>; cpu?: string; pods?: string; taints?: NonNullable<Node['spec']>['taints']; unschedulable?: boolean } = {},
): Node {
  return {
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...(extra.labels ?? {}) } },
    spec: { taints: extra.taints, unschedulable: extra.unschedulable },
    status: { allocatable: { cpu: extra.cpu ?? '4', memory: '8Gi', pods: extra.pods ?? '110' } },
  };
}

function pod(name: string, spec: Partial<Pod['spec']> = {}, cpu?: string): Pod {
  return {
    metadata: { name, namespace: 'default', uid: name },
    spec: { containers: [{ name: 'c', image: 'i', ...(cpu ? { resources: { requests: { cpu } } } : {}) }], ...spec },
  };
}

function schedule(cache: SchedulerCache, p: Pod, framework = new Framework(DEFAULT_FILTERS, DEFAULT_SCORERS)): string {
  return framework.schedule(new CycleState(podInfoOf(p), cache, () => undefined)).node.name;
}

function failure(cache: SchedulerCache, p: Pod): FitError {
  try {
    schedule(cache, p);
  } catch (error) {
    if (error instanceof FitError) return error;
    throw error;
  }
  throw new Error('expected no node to fit');
}

describe('the scheduling framework', () => {
  it('searches every node of a small cluster and a share of a large one', () => {
    expect(numFeasibleNodesToFind(50, 0)).toBe(50);
    expect(numFeasibleNodesToFind(1_000, 0)).toBe(420);
    expect(numFeasibleNodesToFind(5_000, 0)).toBe(500);
    expect(numFeasibleNodesToFind(10_000, 0)).toBe(500);
    expect(numFeasibleNodesToFind(1_000, 50)).toBe(500);
    expect(numFeasibleNodesToFind(150, 10)).toBe(100);
  });

  it('words the reasons as Kubernetes does, counted and sorted', () => {
    const reasons = new Map([
      ['Insufficient cpu', 2],
      ['node(s) had untolerated taint {node.kubernetes.io/unreachable: }', 1],
    ]);
    expect(fitErrorMessage(3, reasons)).toBe(
      '0/3 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, 2 Insufficient cpu.',
    );
  });

  it('fails with no nodes at all', () => {
    expect(() => schedule(new SchedulerCache(), pod('p'))).toThrow(NoNodesAvailableError);
  });

  it('collects each refused node under the first filter that refused it', () => {
    const cache = new SchedulerCache();
    cache.addNode(node('cordoned', { unschedulable: true }));
    cache.addNode(node('tainted', { taints: [{ key: 'k', value: 'v', effect: 'NoExecute' }] }));
    cache.addNode(node('labelled', { labels: { disk: 'hdd' } }));
    cache.addNode(node('full', { pods: '0', labels: { disk: 'ssd' } }));
    cache.addNode(node('small', { cpu: '1', labels: { disk: 'ssd' } }));
    const error = failure(cache, pod('p', { nodeSelector: { disk: 'ssd' } }, '2'));
    expect(error.message).toBe(
      "0/5 nodes are available: 1 Insufficient cpu, 1 Too many pods, 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint {k: v}, 1 node(s) were unschedulable.",
    );
    expect([...error.plugins].sort()).toEqual(['NodeAffinity', 'NodeResourcesFit', 'NodeUnschedulable', 'TaintToleration']);
  });

  it('counts assumed pods, so a full node takes no more', () => {
    const cache = new SchedulerCache();
    cache.addNode(node('only', { cpu: '1' }));
    const first = pod('a', {}, '600m');
    expect(schedule(cache, first)).toBe('only');
    cache.assumePod(podInfoOf(first), 'only');
    expect(failure(cache, pod('b', {}, '600m')).message).toBe('0/1 nodes are available: 1 Insufficient cpu.');
    cache.forgetPod('default/a');
    expect(schedule(cache, pod('b', {}, '600m'))).toBe('only');
  });

  it('scores the least allocated node highest, and avoids PreferNoSchedule taints', () => {
    const cache = new SchedulerCache();
    cache.addNode(node('busy'));
    cache.addNode(node('idle'));
    cache.addPod({ ...pod('x', {}, '3'), spec: { ...pod('x', {}, '3').spec, nodeName: 'busy' } });
    expect(schedule(cache, pod('p', {}, '100m'))).toBe('idle');
    const soft = new SchedulerCache();
    soft.addNode(node('soft', { taints: [{ key: 'k', effect: 'PreferNoSchedule' }] }));
    soft.addNode(node('clean'));
    expect(schedule(soft, pod('p'))).toBe('clean');
  });

  it('reads malformed affinity as matching nothing, and never throws on it', () => {
    const cache = new SchedulerCache();
    cache.addNode(node('n'));
    const bad = pod('p', {
      affinity: {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'x', operator: 'Bogus' }] }] } },
      },
    });
    expect(failure(cache, bad).message).toBe("0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector.");
    const garbage = pod('q', { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: 'nonsense' } } });
    expect(schedule(cache, garbage)).toBe('n');
  });

  it('keeps the room of a nominated pod from pods of its priority or lower, not from higher ones', () => {
    const cache = new SchedulerCache();
    cache.addNode(node('only', { cpu: '1' }));
    const nominator = new PodNominator();
    nominator.nominate(podInfoOf(pod('nominated', { priority: 10 }, '600m')), 'only');
    const attempt = (p: Pod) => new Framework(DEFAULT_FILTERS, DEFAULT_SCORERS).schedule(new CycleState(podInfoOf(p), cache, () => undefined, nominator));
    expect(() => attempt(pod('lower', { priority: 5 }, '600m'))).toThrow('0/1 nodes are available: 1 Insufficient cpu.');
    expect(() => attempt(pod('equal', { priority: 10 }, '600m'))).toThrow('0/1 nodes are available: 1 Insufficient cpu.');
    expect(attempt(pod('higher', { priority: 11 }, '600m')).node.name).toBe('only');
    // The nominated pod itself fits on its node, trying that node first.
    expect(attempt({ ...pod('nominated', { priority: 10 }, '600m'), status: { nominatedNodeName: 'only' } })).toMatchObject({ evaluated: 1 });
  });

  it('says which refusals evictions cannot cure', () => {
    const cache = new SchedulerCache();
    cache.addNode(node('tainted', { taints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }] }));
    cache.addNode(node('small', { cpu: '1' }));
    const error = failure(cache, pod('p', {}, '2'));
    expect(Object.fromEntries(error.refusals)).toEqual({
      tainted: { plugin: 'TaintToleration', reasons: ['node(s) had untolerated taint {k: v}'], unresolvable: true },
      small: { plugin: 'NodeResourcesFit', reasons: ['Insufficient cpu'], unresolvable: false },
    });
  });
});
