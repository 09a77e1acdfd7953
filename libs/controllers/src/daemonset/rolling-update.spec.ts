import type { DaemonSet, Node, Pod } from '@svc/api';
import { podsByNode } from './daemon-pods-by-node';
import { nodeNameAffinity } from './daemon-pod-placement';
import { planRollingUpdate } from './rolling-update';
import { rollingUpdateBounds, scaledValue } from './rolling-update-bounds';

const NOW = Date.parse('2026-01-01T00:10:00Z');

function ds(rollingUpdate: { maxUnavailable?: number | string; maxSurge?: number | string }, minReadySeconds = 0): DaemonSet {
  return {
    metadata: { name: 'd', namespace: 'ns', uid: 'u', annotations: { 'deprecated.daemonset.template.generation': '2' } },
    spec: {
      selector: { matchLabels: { a: 'b' } },
      template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate },
      minReadySeconds,
    },
  };
}

const nodes = (...names: string[]): Node[] => names.map((name) => ({ metadata: { name }, spec: {} }));

let serial = 0;
function pod(node: string, hash: 'old' | 'new', ready: boolean, readySince = '2026-01-01T00:00:00Z'): Pod {
  return {
    metadata: { name: `p${++serial}`, labels: { a: 'b', 'controller-revision-hash': hash }, creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { containers: [], nodeName: node, affinity: nodeNameAffinity(undefined, node) },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: readySince }] },
  };
}

const names = (pods: Pod[]) => pods.map((p) => p.spec.nodeName).sort();

describe('rolling update bounds', () => {
  it('scales percentages of the desired nodes rounding up, for both bounds', () => {
    expect(scaledValue('25%', 10)).toBe(3);
    expect(scaledValue('10%', 1)).toBe(1);
    expect(scaledValue(2, 10)).toBe(2);
    expect(() => scaledValue('x', 10)).toThrow('invalid value');
    expect(rollingUpdateBounds(ds({ maxUnavailable: '50%', maxSurge: 0 }), 5)).toEqual({ maxSurge: 0, maxUnavailable: 3 });
    expect(rollingUpdateBounds(ds({ maxUnavailable: 0, maxSurge: '20%' }), 6)).toEqual({ maxSurge: 2, maxUnavailable: 0 });
  });

  it('allows one unavailable node when both bounds come out 0', () => {
    expect(rollingUpdateBounds(ds({ maxUnavailable: 0, maxSurge: 0 }), 4)).toEqual({ maxSurge: 0, maxUnavailable: 1 });
    expect(rollingUpdateBounds(ds({ maxUnavailable: 0, maxSurge: 0 }), 0)).toEqual({ maxSurge: 0, maxUnavailable: 0 });
  });
});

describe('planRollingUpdate without surge', () => {
  it('deletes old available pods up to maxUnavailable and leaves creation to the manage step', () => {
    const pods = [pod('a', 'old', true), pod('b', 'old', true), pod('c', 'old', true), pod('d', 'old', true)];
    const plan = planRollingUpdate({ ds: ds({ maxUnavailable: 2 }), nodes: nodes('a', 'b', 'c', 'd'), pods: podsByNode(pods), hash: 'new', nowMs: NOW });
    expect(plan.podsToDelete).toHaveLength(2);
    expect(plan.nodesNeedingPods).toEqual([]);
  });

  it('counts new pods not yet available and nodes without a pod against maxUnavailable', () => {
    const pods = [pod('a', 'new', false), pod('b', 'old', true), pod('c', 'old', true)];
    expect(
      planRollingUpdate({ ds: ds({ maxUnavailable: 1 }), nodes: nodes('a', 'b', 'c'), pods: podsByNode(pods), hash: 'new', nowMs: NOW }).podsToDelete,
    ).toEqual([]);
    const empty = [pod('b', 'old', true), pod('c', 'old', true)];
    expect(
      planRollingUpdate({ ds: ds({ maxUnavailable: 1 }), nodes: nodes('a', 'b', 'c'), pods: podsByNode(empty), hash: 'new', nowMs: NOW }).podsToDelete,
    ).toEqual([]);
    expect(
      names(planRollingUpdate({ ds: ds({ maxUnavailable: 2 }), nodes: nodes('a', 'b', 'c'), pods: podsByNode(empty), hash: 'new', nowMs: NOW }).podsToDelete),
    ).toHaveLength(1);
  });

  it('always replaces an old pod that is not available, beyond maxUnavailable', () => {
    const pods = [pod('a', 'old', false), pod('b', 'old', false), pod('c', 'old', true)];
    const plan = planRollingUpdate({ ds: ds({ maxUnavailable: 1 }), nodes: nodes('a', 'b', 'c'), pods: podsByNode(pods), hash: 'new', nowMs: NOW });
    expect(names(plan.podsToDelete)).toEqual(['a', 'b']);
  });

  it('a pod ready for less than minReadySeconds is not yet available', () => {
    const pods = [pod('a', 'new', true, '2026-01-01T00:09:50Z'), pod('b', 'old', true)];
    expect(
      planRollingUpdate({ ds: ds({ maxUnavailable: 1 }, 30), nodes: nodes('a', 'b'), pods: podsByNode(pods), hash: 'new', nowMs: NOW }).podsToDelete,
    ).toEqual([]);
    expect(
      planRollingUpdate({ ds: ds({ maxUnavailable: 1 }, 5), nodes: nodes('a', 'b'), pods: podsByNode(pods), hash: 'new', nowMs: NOW }).podsToDelete,
    ).toHaveLength(1);
  });

  it('pods of the current template generation count as updated even without the hash label', () => {
    const legacy = pod('a', 'old', true);
    legacy.metadata!.labels = { a: 'b', 'pod-template-generation': '2' };
    const plan = planRollingUpdate({
      ds: ds({ maxUnavailable: 1 }),
      nodes: nodes('a', 'b'),
      pods: podsByNode([legacy, pod('b', 'old', true)]),
      hash: 'new',
      nowMs: NOW,
    });
    expect(names(plan.podsToDelete)).toEqual(['b']);
  });
});

describe('planRollingUpdate with surge', () => {
  it('starts new pods beside old available ones, up to maxSurge', () => {
    const pods = [pod('a', 'old', true), pod('b', 'old', true), pod('c', 'old', true)];
    const plan = planRollingUpdate({
      ds: ds({ maxUnavailable: 0, maxSurge: 2 }),
      nodes: nodes('a', 'b', 'c'),
      pods: podsByNode(pods),
      hash: 'new',
      nowMs: NOW,
    });
    expect(plan.podsToDelete).toEqual([]);
    expect(plan.nodesNeedingPods).toHaveLength(2);
  });

  it('starts a new pod at once where the old one is unavailable, and a surging node counts until its new pod is available', () => {
    const pods = [pod('a', 'old', false), pod('b', 'old', true), pod('b', 'new', false), pod('c', 'old', true)];
    const plan = planRollingUpdate({
      ds: ds({ maxUnavailable: 0, maxSurge: 1 }),
      nodes: nodes('a', 'b', 'c'),
      pods: podsByNode(pods),
      hash: 'new',
      nowMs: NOW,
    });
    expect(plan.nodesNeedingPods).toEqual(['a']);
    expect(plan.podsToDelete).toEqual([]);
  });

  it('deletes the old pod once the new one beside it is available', () => {
    const old = pod('a', 'old', true);
    const plan = planRollingUpdate({
      ds: ds({ maxUnavailable: 0, maxSurge: 1 }),
      nodes: nodes('a'),
      pods: podsByNode([old, pod('a', 'new', true)]),
      hash: 'new',
      nowMs: NOW,
    });
    expect(plan.podsToDelete).toEqual([old]);
  });

  it('removes a pod from a node that no longer takes it only once enough pods elsewhere are available', () => {
    const stray = pod('gone', 'old', true);
    const moved = ds({ maxUnavailable: 0, maxSurge: 1 });
    moved.spec.template.spec.nodeSelector = { keep: 'yes' };
    const keep: Node = { metadata: { name: 'a', labels: { keep: 'yes' } }, spec: {} };
    const off: Node = { metadata: { name: 'gone' }, spec: {} };
    const notYet = planRollingUpdate({ ds: moved, nodes: [keep, off], pods: podsByNode([stray, pod('a', 'new', false)]), hash: 'new', nowMs: NOW });
    expect(notYet.podsToDelete).toEqual([]);
    const ready = planRollingUpdate({ ds: moved, nodes: [keep, off], pods: podsByNode([stray, pod('a', 'new', true)]), hash: 'new', nowMs: NOW });
    expect(ready.podsToDelete).toEqual([stray]);
  });
});
