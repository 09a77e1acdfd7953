import type { Container } from '@svc/api';
import { clusterOf, cycleFor, filterNodes, testNode, testPod } from '../testing/plugin-fixtures';
import { ERR_NODE_PORTS, nodePorts } from './node-ports';

function serving(port: number, extra: { protocol?: 'TCP' | 'UDP'; hostIP?: string } = {}): Container {
  return { name: `c${port}`, image: 'busybox', ports: [{ containerPort: 80, hostPort: port, ...extra }] };
}

describe('NodePorts', () => {
  const cluster = clusterOf(
    [testNode('busy'), testNode('free')],
    [
      testPod('web', { node: 'busy', containers: [serving(8080)] }),
      testPod('dns', { node: 'busy', containers: [serving(53, { protocol: 'UDP', hostIP: '10.0.0.1' })] }),
    ],
  );

  function outcomes(...containers: Container[]) {
    return filterNodes(nodePorts, cycleFor(cluster, testPod('p', { containers })));
  }

  it('keeps a pod off a node where its host port is taken, for the same protocol', () => {
    expect(outcomes(serving(8080))).toEqual({ busy: ERR_NODE_PORTS, free: undefined });
    expect(outcomes(serving(8080, { protocol: 'UDP' }))).toEqual({ busy: undefined, free: undefined });
    expect(outcomes({ name: 'c', image: 'busybox', ports: [{ containerPort: 8080 }] })).toEqual({ busy: undefined, free: undefined });
    expect(ERR_NODE_PORTS).toBe("node(s) didn't have free ports for the requested pod ports");
  });

  it('sees a conflict on the same host IP, or where either side binds 0.0.0.0', () => {
    expect(outcomes(serving(53, { protocol: 'UDP', hostIP: '10.0.0.1' })).busy).toBe(ERR_NODE_PORTS);
    expect(outcomes(serving(53, { protocol: 'UDP', hostIP: '10.0.0.2' })).busy).toBeUndefined();
    expect(outcomes(serving(53, { protocol: 'UDP' })).busy).toBe(ERR_NODE_PORTS);
    expect(outcomes(serving(8080, { hostIP: '10.0.0.9' })).busy).toBe(ERR_NODE_PORTS);
  });

  it("counts init containers' host ports, and frees a port when its pod goes", () => {
    const init = testPod('p', { spec: { initContainers: [serving(8080)] } });
    expect(filterNodes(nodePorts, cycleFor(cluster, init)).busy).toBe(ERR_NODE_PORTS);
    const after = clusterOf([testNode('busy')], [testPod('web', { node: 'busy', containers: [serving(8080)] })]);
    after.removePod(testPod('web', { node: 'busy', containers: [serving(8080)] }));
    expect(filterNodes(nodePorts, cycleFor(after, testPod('p', { containers: [serving(8080)] }))).busy).toBeUndefined();
  });

  it('tries a refused pod again when a node is added or a pod on one goes', () => {
    expect(nodePorts.curedBy({ resource: 'Node', action: 'Add' })).toBe(true);
    expect(nodePorts.curedBy({ resource: 'AssignedPod', action: 'Delete' })).toBe(true);
    expect(nodePorts.curedBy({ resource: 'AssignedPod', action: 'Add' })).toBe(false);
    expect(nodePorts.curedBy({ resource: 'Node', action: 'Update', changes: new Set(['label']) })).toBe(false);
  });
});
