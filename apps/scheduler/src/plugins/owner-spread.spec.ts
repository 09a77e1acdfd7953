import { LABEL_REGION, LABEL_ZONE, LABEL_ZONE_LEGACY } from '@svc/api';
import { clusterOf, cycleFor, scoreNodes, testNode, testPod } from '../testing/plugin-fixtures';
import { ownerSpreadScore, zoneKey } from './owner-spread';

function replicas(owner: string, ...nodes: string[]) {
  return nodes.map((node, i) => testPod(`${owner}-${node}-${i}`, { node, owner }));
}

describe('owner spreading score (SelectorSpread)', () => {
  it('scores nodes holding fewer pods of the same owner higher, scaled to 0..100', () => {
    const cluster = clusterOf([testNode('n1'), testNode('n2'), testNode('n3')], [...replicas('rs1', 'n1', 'n1', 'n2'), ...replicas('rs2', 'n3', 'n3', 'n3')]);
    expect(scoreNodes(ownerSpreadScore, cycleFor(cluster, testPod('p', { owner: 'rs1' })))).toEqual({ n1: 0, n2: 50, n3: 100 });
    expect(ownerSpreadScore.weight).toBe(2);
  });

  it('scores every node alike for a pod with no controller owner, or the first of its owner', () => {
    const cluster = clusterOf([testNode('n1'), testNode('n2')], replicas('rs1', 'n1'));
    expect(scoreNodes(ownerSpreadScore, cycleFor(cluster, testPod('p')))).toEqual({ n1: 100, n2: 100 });
    expect(scoreNodes(ownerSpreadScore, cycleFor(cluster, testPod('p', { owner: 'rs9' })))).toEqual({ n1: 100, n2: 100 });
  });

  it('weighs zones two thirds when nodes have them: an emptier zone wins over an emptier node', () => {
    const zone = (name: string, z: string) => testNode(name, { labels: { [LABEL_ZONE]: z, [LABEL_REGION]: 'r' } });
    const cluster = clusterOf([zone('a1', 'a'), zone('a2', 'a'), zone('b1', 'b')], replicas('rs1', 'a1', 'b1', 'b1'));
    // By node: a1 50, a2 100, b1 0. By zone (a: 1, b: 2): a 50, b 0.
    expect(scoreNodes(ownerSpreadScore, cycleFor(cluster, testPod('p', { owner: 'rs1' })))).toEqual({ a1: 50, a2: 66, b1: 0 });
  });

  it('scores a node without zone labels by its own count alone', () => {
    const cluster = clusterOf([testNode('a1', { labels: { [LABEL_ZONE]: 'a' } }), testNode('plain')], replicas('rs1', 'a1', 'plain'));
    expect(scoreNodes(ownerSpreadScore, cycleFor(cluster, testPod('p', { owner: 'rs1' })))).toEqual({ a1: 0, plain: 0 });
  });

  it("keys a zone by region and zone, Kubernetes' and the legacy labels alike", () => {
    const info = (labels: Record<string, string>) => clusterOf([testNode('n', { labels })]).nodes()[0];
    expect(zoneKey(info({ [LABEL_ZONE]: 'z', [LABEL_REGION]: 'r' }))).toBe('r:\u0000:z');
    expect(zoneKey(info({ [LABEL_ZONE_LEGACY]: 'z' }))).toBe(':\u0000:z');
    expect(zoneKey(info({}))).toBe('');
  });
});
