import type { DaemonSet, Node, Pod } from '@svc/api';
import { nodeNameAffinity } from './daemon-pod-placement';
import { podsByNode } from './daemon-pods-by-node';
import { calculateCounts } from './daemonset-status';
import { FailedPodBackoff } from './failed-pod-backoff';
import { planManage } from './manage-plan';

const NOW = Date.parse('2026-01-01T00:10:00Z');

function ds(surge = false): DaemonSet {
  return {
    metadata: { name: 'd', namespace: 'ns', uid: 'u', generation: 1 },
    spec: {
      selector: { matchLabels: { a: 'b' } },
      template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }], nodeSelector: { run: 'yes' } } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: surge ? { maxUnavailable: 0, maxSurge: 1 } : { maxUnavailable: 1, maxSurge: 0 } },
    },
    status: { observedGeneration: 1 },
  };
}

const node = (name: string, run = true): Node => ({ metadata: { name, labels: run ? { run: 'yes' } : {} }, spec: {} });

let serial = 0;
function pod(nodeName: string, options: { phase?: string; ready?: boolean; hash?: string; created?: string; bound?: boolean } = {}): Pod {
  return {
    metadata: {
      name: `p${++serial}`,
      namespace: 'ns',
      labels: { a: 'b', 'controller-revision-hash': options.hash ?? 'h1' },
      creationTimestamp: options.created ?? '2026-01-01T00:00:00Z',
    },
    spec: { containers: [], ...(options.bound === false ? {} : { nodeName }), affinity: nodeNameAffinity(undefined, nodeName) },
    status: { phase: (options.phase ?? 'Running') as never, conditions: [{ type: 'Ready', status: options.ready === false ? 'False' : 'True' }] },
  };
}

describe('planManage', () => {
  it('makes a pod where one should run and none is, and deletes the pods of a node that should not run it', () => {
    const stray = pod('off');
    const plan = planManage({
      ds: ds(),
      nodes: [node('a'), node('b'), node('off', false)],
      pods: podsByNode([pod('a'), stray]),
      hash: 'h1',
      nowMs: NOW,
      backoff: new FailedPodBackoff(),
    });
    expect(plan.nodesNeedingPods).toEqual(['b']);
    expect(plan.podsToDelete).toEqual([stray]);
  });

  it('keeps the oldest of several running pods on a node', () => {
    const oldest = pod('a', { created: '2026-01-01T00:00:00Z' });
    const younger = pod('a', { created: '2026-01-01T00:05:00Z' });
    const plan = planManage({ ds: ds(), nodes: [node('a')], pods: podsByNode([younger, oldest]), hash: 'h1', nowMs: NOW, backoff: new FailedPodBackoff() });
    expect(plan.podsToDelete).toEqual([younger]);
  });

  it('deletes a failed pod with a FailedDaemonPod event, then waits out a doubling backoff for the next one', () => {
    const backoff = new FailedPodBackoff();
    const failed = pod('a', { phase: 'Failed' });
    const first = planManage({ ds: ds(), nodes: [node('a')], pods: podsByNode([failed]), hash: 'h1', nowMs: NOW, backoff });
    expect(first.podsToDelete).toEqual([failed]);
    expect(first.events).toEqual([
      { type: 'Warning', reason: 'FailedDaemonPod', message: `Found failed daemon pod ns/${failed.metadata!.name} on node a, will try to kill it` },
    ]);
    const again = pod('a', { phase: 'Failed' });
    const held = planManage({ ds: ds(), nodes: [node('a')], pods: podsByNode([again]), hash: 'h1', nowMs: NOW + 500, backoff });
    expect(held.podsToDelete).toEqual([]);
    expect(held.retryAfterMs).toBe(1_000);
    expect(planManage({ ds: ds(), nodes: [node('a')], pods: podsByNode([again]), hash: 'h1', nowMs: NOW + 1_500, backoff }).podsToDelete).toEqual([again]);
    expect(backoff.delayMs('u/1/a')).toBe(2_000);
  });

  it('deletes an unbound pod meant for a node that is gone', () => {
    const orphaned = pod('gone', { bound: false });
    const plan = planManage({ ds: ds(), nodes: [node('a')], pods: podsByNode([pod('a'), orphaned]), hash: 'h1', nowMs: NOW, backoff: new FailedPodBackoff() });
    expect(plan.podsToDelete).toEqual([orphaned]);
  });

  it('with surge keeps an old ready pod beside a new one until the new one is available', () => {
    const old = pod('a', { hash: 'h0' });
    const fresh = pod('a', { hash: 'h1', ready: false, created: '2026-01-01T00:05:00Z' });
    expect(
      planManage({ ds: ds(true), nodes: [node('a')], pods: podsByNode([old, fresh]), hash: 'h1', nowMs: NOW, backoff: new FailedPodBackoff() }).podsToDelete,
    ).toEqual([]);
    const ready = pod('a', { hash: 'h1', created: '2026-01-01T00:05:00Z' });
    expect(
      planManage({ ds: ds(true), nodes: [node('a')], pods: podsByNode([old, ready]), hash: 'h1', nowMs: NOW, backoff: new FailedPodBackoff() }).podsToDelete,
    ).toEqual([old]);
  });
});

describe('calculateCounts', () => {
  it('counts desired, current, misscheduled, ready, available and updated nodes as Kubernetes does', () => {
    const pods = podsByNode([pod('a'), pod('b', { ready: false }), pod('c', { hash: 'h0' }), pod('off')]);
    const counts = calculateCounts(ds(), [node('a'), node('b'), node('c'), node('d'), node('off', false)], pods, 'h1', NOW);
    expect(counts).toEqual({
      desiredNumberScheduled: 4,
      currentNumberScheduled: 3,
      numberMisscheduled: 1,
      numberReady: 2,
      updatedNumberScheduled: 2,
      numberAvailable: 2,
      numberUnavailable: 2,
    });
  });
});
