import type { Taint, Toleration } from '@svc/api';
import { clusterOf, cycleFor, filterNodes, scoreNodes, testNode, testPod } from '../testing/plugin-fixtures';
import { taintTolerationFilter, taintTolerationScore, untoleratedTaintReason } from './taint-toleration';

function tainted(name: string, ...taints: Taint[]) {
  return testNode(name, { taints });
}

describe('TaintToleration: filter', () => {
  const cluster = clusterOf([
    testNode('clean'),
    tainted('gpu', { key: 'gpu', value: 'true', effect: 'NoSchedule' }),
    tainted('draining', { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }),
    tainted('soft', { key: 'spot', value: 'yes', effect: 'PreferNoSchedule' }),
  ]);

  it('keeps a pod off nodes whose NoSchedule or NoExecute taints it does not tolerate, naming the taint as Kubernetes does; PreferNoSchedule only scores', () => {
    expect(filterNodes(taintTolerationFilter, cycleFor(cluster, testPod('p')))).toEqual({
      clean: undefined,
      gpu: 'node(s) had untolerated taint {gpu: true}',
      draining: 'node(s) had untolerated taint {node.kubernetes.io/unreachable: }',
      soft: undefined,
    });
    expect(untoleratedTaintReason('k', undefined)).toBe('node(s) had untolerated taint {k: }');
  });

  it.each<[string, Toleration, boolean]>([
    ['Equal on key, value and effect', { key: 'gpu', operator: 'Equal', value: 'true', effect: 'NoSchedule' }, true],
    ['Equal is the default operator', { key: 'gpu', value: 'true', effect: 'NoSchedule' }, true],
    ['Exists on the key, any value', { key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }, true],
    ['an empty effect matches every effect', { key: 'gpu', operator: 'Exists' }, true],
    ['Exists with no key tolerates everything', { operator: 'Exists' }, true],
    ['another value', { key: 'gpu', operator: 'Equal', value: 'false', effect: 'NoSchedule' }, false],
    ['another effect', { key: 'gpu', operator: 'Exists', effect: 'NoExecute' }, false],
  ])('a toleration by %s: tolerated %s', (_what, toleration, tolerated) => {
    const outcome = filterNodes(taintTolerationFilter, cycleFor(cluster, testPod('p', { spec: { tolerations: [toleration] } }))).gpu;
    expect(outcome).toBe(tolerated ? undefined : 'node(s) had untolerated taint {gpu: true}');
  });

  it('names the first taint the pod does not tolerate', () => {
    const node = tainted('two', { key: 'a', value: '1', effect: 'NoSchedule' }, { key: 'b', value: '2', effect: 'NoExecute' });
    const pod = testPod('p', { spec: { tolerations: [{ key: 'a', operator: 'Exists' }] } });
    expect(filterNodes(taintTolerationFilter, cycleFor(clusterOf([node]), pod))).toEqual({ two: 'node(s) had untolerated taint {b: 2}' });
  });

  it('tries a refused pod again when a node is added or its taints change', () => {
    expect(taintTolerationFilter.curedBy({ resource: 'Node', action: 'Add' })).toBe(true);
    expect(taintTolerationFilter.curedBy({ resource: 'Node', action: 'Update', changes: new Set(['taint']) })).toBe(true);
    expect(taintTolerationFilter.curedBy({ resource: 'Node', action: 'Update', changes: new Set(['label', 'allocatable']) })).toBe(false);
    expect(taintTolerationFilter.curedBy({ resource: 'AssignedPod', action: 'Delete' })).toBe(false);
  });
});

describe('TaintToleration: score', () => {
  const prefer = (key: string): Taint => ({ key, value: 'x', effect: 'PreferNoSchedule' });
  const cluster = clusterOf([
    testNode('none'),
    tainted('one', prefer('a')),
    tainted('two', prefer('a'), prefer('b')),
    tainted('hard', { key: 'a', value: 'x', effect: 'NoSchedule' }),
  ]);

  it('scores nodes by their untolerated PreferNoSchedule taints, fewest highest, scaled to 0..100', () => {
    expect(scoreNodes(taintTolerationScore, cycleFor(cluster, testPod('p')))).toEqual({ none: 100, one: 50, two: 0, hard: 100 });
    expect(taintTolerationScore.weight).toBe(3);
  });

  it('counts only tolerations with no effect or PreferNoSchedule', () => {
    const tolerates = (toleration: Toleration) => scoreNodes(taintTolerationScore, cycleFor(cluster, testPod('p', { spec: { tolerations: [toleration] } })));
    expect(tolerates({ key: 'a', operator: 'Exists', effect: 'PreferNoSchedule' })).toEqual({ none: 100, one: 100, two: 0, hard: 100 });
    expect(tolerates({ key: 'a', operator: 'Exists' })).toEqual({ none: 100, one: 100, two: 0, hard: 100 });
    expect(tolerates({ key: 'a', operator: 'Exists', effect: 'NoSchedule' })).toEqual({ none: 100, one: 50, two: 0, hard: 100 });
    expect(tolerates({ operator: 'Exists' })).toEqual({ none: 100, one: 100, two: 100, hard: 100 });
  });
});
