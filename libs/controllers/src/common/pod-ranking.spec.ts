import type { Pod } from '@svc/api';
import { compareForDeletion, maxContainerRestarts, podDeletionCost, podsToDelete, POD_DELETION_COST_ANNOTATION } from './pod-ranking';

const NOW = Date.parse('2030-01-01T12:00:00Z');
const ago = (seconds: number) => new Date(NOW - seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

interface PodShape {
  name: string;
  uid?: string;
  node?: string;
  phase?: 'Pending' | 'Running' | 'Unknown';
  readyFor?: number;
  createdAgo?: number;
  restarts?: number;
  cost?: string;
}

function pod(p: PodShape): Pod {
  return {
    metadata: {
      name: p.name,
      uid: p.uid ?? `uid-${p.name}`,
      creationTimestamp: ago(p.createdAgo ?? 10_000),
      ...(p.cost !== undefined ? { annotations: { [POD_DELETION_COST_ANNOTATION]: p.cost } } : {}),
    },
    spec: { containers: [{ name: 'c', image: 'i' }], ...(p.node ? { nodeName: p.node } : {}) },
    status: {
      phase: p.phase ?? 'Running',
      conditions: [{ type: 'Ready', status: p.readyFor !== undefined ? 'True' : 'False', lastTransitionTime: ago(p.readyFor ?? 0) }],
      containerStatuses: [{ name: 'c', restartCount: p.restarts ?? 0 }],
    },
  };
}

const names = (pods: Pod[]) => pods.map((p) => p.metadata?.name);
const first = (a: Pod, b: Pod, options = {}) => compareForDeletion(a, 0, b, 0, { nowMs: NOW, ...options }) < 0;

describe('deletion ranking (Kubernetes ActivePodsWithRanks)', () => {
  it('deletes unassigned pods before assigned ones', () => {
    expect(first(pod({ name: 'a', readyFor: 100 }), pod({ name: 'b', node: 'n1', phase: 'Pending' }))).toBe(true);
    expect(first(pod({ name: 'b', node: 'n1', phase: 'Pending' }), pod({ name: 'a', readyFor: 100 }))).toBe(false);
  });

  it('orders phases Pending < Unknown < Running', () => {
    const pods = [
      pod({ name: 'run', node: 'n' }),
      pod({ name: 'unknown', node: 'n', phase: 'Unknown' }),
      pod({ name: 'pending', node: 'n', phase: 'Pending' }),
    ];
    expect(names(podsToDelete(pods, [], 2, { nowMs: NOW }))).toEqual(['pending', 'unknown']);
  });

  it('deletes not-ready pods before ready ones', () => {
    expect(first(pod({ name: 'notready', node: 'n' }), pod({ name: 'ready', node: 'n', readyFor: 5 }))).toBe(true);
    expect(first(pod({ name: 'ready', node: 'n', readyFor: 5 }), pod({ name: 'notready', node: 'n' }))).toBe(false);
  });

  it('deletes the lower pod-deletion-cost first, unless the gate is off', () => {
    // Without costs the one ready for less time (dear) would go first.
    const cheap = pod({ name: 'cheap', node: 'n', readyFor: 10_000, cost: '-5' });
    const dear = pod({ name: 'dear', node: 'n', readyFor: 10, cost: '100' });
    expect(first(cheap, dear)).toBe(true);
    expect(first(cheap, dear, { deletionCost: false })).toBe(false);
  });

  it('reads a malformed or out-of-range deletion cost as 0', () => {
    expect(podDeletionCost(pod({ name: 'a', cost: '12' }))).toBe(12);
    expect(podDeletionCost(pod({ name: 'a', cost: 'x' }))).toBe(0);
    expect(podDeletionCost(pod({ name: 'a', cost: '99999999999' }))).toBe(0);
    expect(podDeletionCost(pod({ name: 'a' }))).toBe(0);
  });

  it('deletes pods on crowded nodes first (rank = related pods on the same node)', () => {
    const lonely = pod({ name: 'lonely', node: 'n1', readyFor: 100 });
    const crowded = pod({ name: 'crowded', node: 'n2', readyFor: 100 });
    const related = [lonely, crowded, pod({ name: 'x', node: 'n2' }), pod({ name: 'y', node: 'n2' })];
    expect(names(podsToDelete([lonely, crowded], related, 1, { nowMs: NOW }))).toEqual(['crowded']);
  });

  it('deletes pods ready for less time first (log2 buckets of age)', () => {
    expect(first(pod({ name: 'new', node: 'n', readyFor: 10 }), pod({ name: 'old', node: 'n', readyFor: 10_000 }))).toBe(true);
    expect(first(pod({ name: 'old', node: 'n', readyFor: 10_000 }), pod({ name: 'new', node: 'n', readyFor: 10 }))).toBe(false);
  });

  it('deletes pods with more container restarts first', () => {
    const pods = [pod({ name: 'calm', node: 'n', readyFor: 100 }), pod({ name: 'flappy', node: 'n', readyFor: 100, restarts: 7 })];
    expect(names(podsToDelete(pods, [], 1, { nowMs: NOW }))).toEqual(['flappy']);
    expect(maxContainerRestarts(pods[1])).toBe(7);
  });

  it('deletes newer pods first', () => {
    const pods = [pod({ name: 'older', node: 'n', createdAgo: 100_000 }), pod({ name: 'newer', node: 'n', createdAgo: 20 })];
    expect(names(podsToDelete(pods, [], 1, { nowMs: NOW }))).toEqual(['newer']);
  });

  it('breaks ties within one log2 age bucket by uid, or by exact time without the logarithmic gate', () => {
    // 1000 s and 1100 s ago share a log2 bucket of nanoseconds (2^39 ns is about 550 s, 2^40 about 1100 s).
    const a = pod({ name: 'a', uid: 'bbb', node: 'n', createdAgo: 1000 });
    const b = pod({ name: 'b', uid: 'aaa', node: 'n', createdAgo: 1090 });
    expect(names(podsToDelete([a, b], [], 1, { nowMs: NOW }))).toEqual(['b']);
    expect(names(podsToDelete([a, b], [], 1, { nowMs: NOW, logarithmic: false }))).toEqual(['a']);
  });

  it('applies the criteria in order: phase beats readiness, readiness beats age', () => {
    const pods = [
      pod({ name: 'ready-old', node: 'n', readyFor: 50_000, createdAgo: 60_000 }),
      pod({ name: 'ready-new', node: 'n', readyFor: 5, createdAgo: 10 }),
      pod({ name: 'notready-old', node: 'n', createdAgo: 90_000 }),
      pod({ name: 'pending', node: 'n', phase: 'Pending', createdAgo: 100_000 }),
      pod({ name: 'unassigned', readyFor: 90_000, createdAgo: 100_000 }),
    ];
    expect(names(podsToDelete(pods, [], 4, { nowMs: NOW }))).toEqual(['unassigned', 'pending', 'notready-old', 'ready-new']);
  });

  it('returns every pod when all go', () => {
    const pods = [pod({ name: 'a' }), pod({ name: 'b' })];
    expect(names(podsToDelete(pods, [], 5, { nowMs: NOW }))).toEqual(['a', 'b']);
  });
});
