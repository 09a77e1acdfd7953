import type { PodSpec } from '@svc/api';
import { clusterOf, cycleFor, filterNodes, scoreNodes, testNode, testPod } from '../testing/plugin-fixtures';
import { ERR_NODE_AFFINITY, nodeAffinityFilter, nodeAffinityScore } from './node-affinity';

const cluster = clusterOf([
  testNode('a1', { labels: { zone: 'a', disk: 'ssd', cores: '8' } }),
  testNode('a2', { labels: { zone: 'a', disk: 'hdd', cores: '2' } }),
  testNode('b1', { labels: { zone: 'b', disk: 'ssd' } }),
]);

function fitting(spec: Partial<PodSpec>): string[] {
  const outcomes = filterNodes(nodeAffinityFilter, cycleFor(cluster, testPod('p', { spec })));
  for (const outcome of Object.values(outcomes)) if (outcome !== undefined) expect(outcome).toBe(ERR_NODE_AFFINITY);
  return Object.keys(outcomes).filter((name) => outcomes[name] === undefined);
}

function required(...nodeSelectorTerms: unknown[]): Partial<PodSpec> {
  return { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms } } } };
}

describe('NodeAffinity: filter', () => {
  it("keeps a pod on the nodes its nodeSelector matches, with Kubernetes' reason", () => {
    expect(fitting({})).toEqual(['a1', 'a2', 'b1']);
    expect(fitting({ nodeSelector: { zone: 'a' } })).toEqual(['a1', 'a2']);
    expect(fitting({ nodeSelector: { zone: 'a', disk: 'ssd' } })).toEqual(['a1']);
    expect(ERR_NODE_AFFINITY).toBe("node(s) didn't match Pod's node affinity/selector");
  });

  it.each<[string, unknown, string[]]>([
    ['In', { key: 'disk', operator: 'In', values: ['ssd', 'nvme'] }, ['a1', 'b1']],
    ['NotIn (a node without the label is in)', { key: 'cores', operator: 'NotIn', values: ['2'] }, ['a1', 'b1']],
    ['Exists', { key: 'cores', operator: 'Exists' }, ['a1', 'a2']],
    ['DoesNotExist', { key: 'cores', operator: 'DoesNotExist' }, ['b1']],
    ['Gt', { key: 'cores', operator: 'Gt', values: ['4'] }, ['a1']],
    ['Lt', { key: 'cores', operator: 'Lt', values: ['4'] }, ['a2']],
  ])('matches a required expression with %s', (_operator, expression, nodes) => {
    expect(fitting(required({ matchExpressions: [expression] }))).toEqual(nodes);
  });

  it('ANDs the expressions of a term, ORs the terms, and matches fields on the node name', () => {
    const ssdInA = {
      matchExpressions: [
        { key: 'zone', operator: 'In', values: ['a'] },
        { key: 'disk', operator: 'In', values: ['ssd'] },
      ],
    };
    expect(fitting(required(ssdInA))).toEqual(['a1']);
    expect(fitting(required(ssdInA, { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['b1'] }] }))).toEqual(['a1', 'b1']);
    expect(fitting(required({ matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['a1'] }] }))).toEqual(['a2', 'b1']);
  });

  it('needs both the nodeSelector and the required affinity', () => {
    expect(fitting({ nodeSelector: { zone: 'a' }, ...required({ matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] }) })).toEqual(['a1']);
  });

  it('matches no node with no terms, an empty term, or a term it cannot read', () => {
    expect(fitting(required())).toEqual([]);
    expect(fitting(required({}))).toEqual([]);
    expect(fitting(required({ matchExpressions: [{ key: 'zone', operator: 'Near', values: ['a'] }] }))).toEqual([]);
    expect(fitting(required({ matchFields: [{ key: 'metadata.uid', operator: 'In', values: ['x'] }] }))).toEqual([]);
  });

  it('tries a refused pod again when a node is added or its labels change', () => {
    expect(nodeAffinityFilter.curedBy({ resource: 'Node', action: 'Add' })).toBe(true);
    expect(nodeAffinityFilter.curedBy({ resource: 'Node', action: 'Update', changes: new Set(['label']) })).toBe(true);
    expect(nodeAffinityFilter.curedBy({ resource: 'Node', action: 'Update', changes: new Set(['taint']) })).toBe(false);
    expect(nodeAffinityFilter.curedBy({ resource: 'AssignedPod', action: 'Add' })).toBe(false);
  });
});

describe('NodeAffinity: score', () => {
  function scores(preferred: unknown[]): Record<string, number> {
    const spec = { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: preferred } } };
    return scoreNodes(nodeAffinityScore, cycleFor(cluster, testPod('p', { spec })));
  }

  it('sums the weights of the preferred terms a node matches, scaled so the best scores 100', () => {
    const zoneA = { weight: 2, preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] } };
    const ssd = { weight: 8, preference: { matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] } };
    expect(scores([zoneA, ssd])).toEqual({ a1: 100, a2: 20, b1: 80 });
    expect(nodeAffinityScore.weight).toBe(2);
  });

  it('scores every node 0 without preferences, and leaves out terms of weight 0', () => {
    expect(scores([])).toEqual({ a1: 0, a2: 0, b1: 0 });
    expect(scores([{ weight: 0, preference: { matchExpressions: [{ key: 'zone', operator: 'Exists' }] } }])).toEqual({ a1: 0, a2: 0, b1: 0 });
  });
});
