import { clusterOf, cycleFor, filterNodes, scoreNodes, testNode, testPod, type TestPodOptions } from '../testing/plugin-fixtures';
import { balancedAllocationScore, ERR_TOO_MANY_PODS, insufficient, leastAllocatedScore, nodeResourcesFit } from './node-resources-fit';

describe('NodeResourcesFit: filter', () => {
  const node = testNode('n', { cpu: '4', memory: '8Gi', pods: '3', extra: { 'ephemeral-storage': '10Gi', 'example.com/gpu': '2' } });
  const cluster = clusterOf([node, testNode('plain', { pods: '3' })], [testPod('running', { node: 'n', requests: { cpu: '3', memory: '6Gi' } })]);

  function outcome(options: TestPodOptions) {
    return filterNodes(nodeResourcesFit, cycleFor(cluster, testPod('p', options))).n;
  }

  it('fits a pod whose requests are within what the node has left', () => {
    expect(outcome({ requests: { cpu: '1', memory: '2Gi' } })).toBeUndefined();
    expect(outcome({ requests: { cpu: '1001m' } })).toBe('Insufficient cpu');
    expect(outcome({ requests: { memory: '2049Mi' } })).toBe('Insufficient memory');
  });

  it('gives every reason at once, in the order Kubernetes checks them', () => {
    expect(outcome({ requests: { cpu: '2', memory: '3Gi', 'ephemeral-storage': '11Gi', 'example.com/gpu': '3' } })).toEqual([
      'Insufficient cpu',
      'Insufficient memory',
      'Insufficient ephemeral-storage',
      'Insufficient example.com/gpu',
    ]);
    expect(insufficient('hugepages-2Mi')).toBe('Insufficient hugepages-2Mi');
  });

  it('refuses an extended resource a node does not have, and ignores a request of zero', () => {
    const cluster2 = clusterOf([testNode('plain')]);
    expect(filterNodes(nodeResourcesFit, cycleFor(cluster2, testPod('p', { requests: { 'example.com/gpu': '1' } }))).plain).toBe(
      'Insufficient example.com/gpu',
    );
    expect(filterNodes(nodeResourcesFit, cycleFor(cluster2, testPod('p', { requests: { 'example.com/gpu': '0' } }))).plain).toBeUndefined();
  });

  it('counts the pods on the node against allocatable pods, even for a pod that requests nothing', () => {
    const full = clusterOf([testNode('n', { pods: '2' })], [testPod('a', { node: 'n' }), testPod('b', { node: 'n' })]);
    expect(filterNodes(nodeResourcesFit, cycleFor(full, testPod('p'))).n).toBe(ERR_TOO_MANY_PODS);
    expect(ERR_TOO_MANY_PODS).toBe('Too many pods');
    expect(outcome({})).toBeUndefined();
  });

  it('asks for the larger of the containers together and the largest init container, plus the overhead', () => {
    const two = (cpu: string) => [
      { name: 'a', image: 'i', resources: { requests: { cpu } } },
      { name: 'b', image: 'i', resources: { requests: { cpu } } },
    ];
    expect(outcome({ containers: two('500m') })).toBeUndefined();
    expect(outcome({ containers: two('600m') })).toBe('Insufficient cpu');
    const init = { initContainers: [{ name: 'init', image: 'i', resources: { requests: { cpu: '1100m' } } }] };
    expect(outcome({ containers: two('100m'), spec: init })).toBe('Insufficient cpu');
    expect(outcome({ requests: { cpu: '900m' }, spec: { overhead: { cpu: '200m' } } })).toBe('Insufficient cpu');
  });

  it('counts a pod assumed on the node before its binding is seen', () => {
    const cache = clusterOf([testNode('n', { cpu: '1' })]);
    const first = testPod('first', { requests: { cpu: '600m' } });
    cache.assumePod(cycleFor(cache, first).pod, 'n');
    expect(filterNodes(nodeResourcesFit, cycleFor(cache, testPod('p', { requests: { cpu: '600m' } }))).n).toBe('Insufficient cpu');
  });

  it('tries a refused pod again when a node is added or its allocatable changes, or a pod on a node goes', () => {
    expect(nodeResourcesFit.curedBy({ resource: 'Node', action: 'Add' })).toBe(true);
    expect(nodeResourcesFit.curedBy({ resource: 'Node', action: 'Update', changes: new Set(['allocatable']) })).toBe(true);
    expect(nodeResourcesFit.curedBy({ resource: 'AssignedPod', action: 'Delete' })).toBe(true);
    expect(nodeResourcesFit.curedBy({ resource: 'Node', action: 'Update', changes: new Set(['label', 'taint']) })).toBe(false);
    expect(nodeResourcesFit.curedBy({ resource: 'AssignedPod', action: 'Add' })).toBe(false);
  });
});

describe('NodeResourcesFit: LeastAllocated score', () => {
  it('scores the share of CPU and memory left after the pod, averaged', () => {
    const cluster = clusterOf(
      [testNode('half', { cpu: '4', memory: '8Gi' }), testNode('empty', { cpu: '4', memory: '8Gi' })],
      [testPod('x', { node: 'half', requests: { cpu: '2', memory: '4Gi' } })],
    );
    expect(scoreNodes(leastAllocatedScore, cycleFor(cluster, testPod('p', { requests: { cpu: '1', memory: '2Gi' } })))).toEqual({ half: 25, empty: 75 });
    expect(leastAllocatedScore.weight).toBe(1);
  });

  it('counts a container without requests as asking 100m CPU and 200 MiB, on the node and in the pod', () => {
    const cluster = clusterOf([testNode('n', { cpu: '1', memory: '1000Mi' })], [testPod('x', { node: 'n' })]);
    // CPU: (1000 - 200) / 1000; memory: (1000 - 400) / 1000.
    expect(scoreNodes(leastAllocatedScore, cycleFor(cluster, testPod('p')))).toEqual({ n: 70 });
  });

  it('scores 0 for a resource asked beyond capacity, and leaves out a resource the node has none of', () => {
    const cluster = clusterOf([testNode('small', { cpu: '1', memory: '8Gi' }), testNode('cpu-only', { cpu: '4', memory: '0' })]);
    expect(scoreNodes(leastAllocatedScore, cycleFor(cluster, testPod('p', { requests: { cpu: '2', memory: '4Gi' } })))).toEqual({ small: 25, 'cpu-only': 50 });
  });
});

describe('NodeResourcesBalancedAllocation score', () => {
  it('scores nodes whose CPU and memory shares stay close higher: 100 less half their difference', () => {
    const cluster = clusterOf(
      [testNode('cpu-heavy', { cpu: '4', memory: '8Gi' }), testNode('even', { cpu: '4', memory: '8Gi' })],
      [testPod('x', { node: 'cpu-heavy', requests: { cpu: '2', memory: '1Gi' } }), testPod('y', { node: 'even', requests: { cpu: '1', memory: '2Gi' } })],
    );
    // cpu-heavy: 3/4 CPU and 2/8 memory, 25 apart; even: 2/4 and 3/8.
    expect(scoreNodes(balancedAllocationScore, cycleFor(cluster, testPod('p', { requests: { cpu: '1', memory: '1Gi' } })))).toEqual({
      'cpu-heavy': 75,
      even: 93,
    });
    expect(balancedAllocationScore.weight).toBe(1);
  });

  it('counts requests as they are (no defaults), caps a share at 1, and leaves out a resource the node has none of', () => {
    const cluster = clusterOf([testNode('n', { cpu: '1', memory: '8Gi' }), testNode('cpu-only', { cpu: '1', memory: '0' })], [testPod('x', { node: 'n' })]);
    expect(scoreNodes(balancedAllocationScore, cycleFor(cluster, testPod('p')))).toEqual({ n: 100, 'cpu-only': 100 });
    expect(scoreNodes(balancedAllocationScore, cycleFor(cluster, testPod('p', { requests: { cpu: '3' } })))).toEqual({ n: 50, 'cpu-only': 100 });
  });
});
