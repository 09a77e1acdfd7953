import { clusterOf, cycleFor, filterNodes, testNode, testPod } from '../testing/plugin-fixtures';
import { ERR_NODE_NAME, nodeName } from './node-name';

describe('NodeName', () => {
  const cluster = clusterOf([testNode('a'), testNode('b')]);

  it('lets a pod that names no node onto any node', () => {
    expect(filterNodes(nodeName, cycleFor(cluster, testPod('p')))).toEqual({ a: undefined, b: undefined });
  });

  it('lets a pod that names its node onto that node only', () => {
    expect(filterNodes(nodeName, cycleFor(cluster, testPod('p', { spec: { nodeName: 'b' } })))).toEqual({ a: ERR_NODE_NAME, b: undefined });
    expect(filterNodes(nodeName, cycleFor(cluster, testPod('p', { spec: { nodeName: 'c' } })))).toEqual({ a: ERR_NODE_NAME, b: ERR_NODE_NAME });
    expect(ERR_NODE_NAME).toBe("node(s) didn't match the requested node name");
  });

  it('tries a refused pod again only when a node is added', () => {
    expect(nodeName.curedBy({ resource: 'Node', action: 'Add' })).toBe(true);
    expect(nodeName.curedBy({ resource: 'Node', action: 'Update', changes: new Set(['label']) })).toBe(false);
    expect(nodeName.curedBy({ resource: 'AssignedPod', action: 'Delete' })).toBe(false);
  });
});
