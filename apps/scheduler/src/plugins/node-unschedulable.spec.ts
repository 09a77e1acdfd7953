import type { Toleration } from '@svc/api';
import { clusterOf, cycleFor, filterNodes, testNode, testPod } from '../testing/plugin-fixtures';
import { ERR_NODE_UNSCHEDULABLE, nodeUnschedulable } from './node-unschedulable';

describe('NodeUnschedulable', () => {
  const cluster = clusterOf([testNode('open'), testNode('cordoned', { unschedulable: true })]);

  it('keeps pods off a cordoned node', () => {
    expect(filterNodes(nodeUnschedulable, cycleFor(cluster, testPod('p')))).toEqual({ open: undefined, cordoned: ERR_NODE_UNSCHEDULABLE });
    expect(ERR_NODE_UNSCHEDULABLE).toBe('node(s) were unschedulable');
  });

  it.each<[string, Toleration, boolean]>([
    ['the unschedulable taint by key', { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }, true],
    ['every taint (an empty key with Exists)', { operator: 'Exists' }, true],
    ['the key with any effect', { key: 'node.kubernetes.io/unschedulable', operator: 'Exists' }, true],
    ['the key with another effect only', { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoExecute' }, false],
    ['another key', { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoSchedule' }, false],
  ])('lets a pod that tolerates %s onto it: %s', (_what, toleration, fits) => {
    const outcomes = filterNodes(nodeUnschedulable, cycleFor(cluster, testPod('p', { spec: { tolerations: [toleration] } })));
    expect(outcomes.cordoned).toBe(fits ? undefined : ERR_NODE_UNSCHEDULABLE);
  });

  it('tries a refused pod again when a node is added, uncordoned or its taints change', () => {
    expect(nodeUnschedulable.curedBy({ resource: 'Node', action: 'Add' })).toBe(true);
    expect(nodeUnschedulable.curedBy({ resource: 'Node', action: 'Update', changes: new Set(['unschedulable']) })).toBe(true);
    expect(nodeUnschedulable.curedBy({ resource: 'Node', action: 'Update', changes: new Set(['taint']) })).toBe(true);
    expect(nodeUnschedulable.curedBy({ resource: 'Node', action: 'Update', changes: new Set(['label']) })).toBe(false);
    expect(nodeUnschedulable.curedBy({ resource: 'AssignedPod', action: 'Delete' })).toBe(false);
  });
});
