import type { DaemonSet, Node } from '@svc/api';
import { nodeShouldRunDaemonPod } from './node-should-run';

function ds(spec: Partial<NonNullable<DaemonSet['spec']['template']['spec']>> = {}): DaemonSet {
  return {
    metadata: { name: 'd', namespace: 'ns' },
    spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }], ...spec } } },
  };
}

function node(labels: Record<string, string> = {}, taints: NonNullable<Node['spec']>['taints'] = []): Node {
  return { metadata: { name: 'n1', labels }, spec: { taints } };
}

const both = (shouldRun: boolean, shouldContinueRunning: boolean) => ({ shouldRun, shouldContinueRunning });

describe('nodeShouldRunDaemonPod (Kubernetes predicates for daemons)', () => {
  it('runs on a plain node, and on a node whose labels meet the nodeSelector only', () => {
    expect(nodeShouldRunDaemonPod(node(), ds())).toEqual(both(true, true));
    expect(nodeShouldRunDaemonPod(node({ disk: 'ssd' }), ds({ nodeSelector: { disk: 'ssd' } }))).toEqual(both(true, true));
    expect(nodeShouldRunDaemonPod(node({ disk: 'hdd' }), ds({ nodeSelector: { disk: 'ssd' } }))).toEqual(both(false, false));
  });

  it('honours the required node affinity, and a template naming another node rules this one out', () => {
    const affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] },
      },
    };
    expect(nodeShouldRunDaemonPod(node({ zone: 'a' }), ds({ affinity }))).toEqual(both(true, true));
    expect(nodeShouldRunDaemonPod(node({ zone: 'b' }), ds({ affinity }))).toEqual(both(false, false));
    expect(nodeShouldRunDaemonPod(node(), ds({ nodeName: 'n2' }))).toEqual(both(false, false));
    expect(nodeShouldRunDaemonPod(node(), ds({ nodeName: 'n1' }))).toEqual(both(true, true));
  });

  it('tolerates by itself the taints of cordoned, pressured, not-ready and unreachable nodes', () => {
    for (const taint of [
      { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' as const },
      { key: 'node.kubernetes.io/disk-pressure', effect: 'NoSchedule' as const },
      { key: 'node.kubernetes.io/memory-pressure', effect: 'NoSchedule' as const },
      { key: 'node.kubernetes.io/pid-pressure', effect: 'NoSchedule' as const },
      { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' as const },
      { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' as const },
    ]) {
      expect(nodeShouldRunDaemonPod(node({}, [taint]), ds())).toEqual(both(true, true));
    }
  });

  it('keeps off a node whose network is not up unless the pod is on the host network', () => {
    const taints = [{ key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule' as const }];
    expect(nodeShouldRunDaemonPod(node({}, taints), ds())).toEqual(both(false, true));
    expect(nodeShouldRunDaemonPod(node({}, taints), ds({ hostNetwork: true }))).toEqual(both(true, true));
  });

  it('an untolerated NoSchedule taint keeps new pods off but lets a running one stay; an untolerated NoExecute one evicts it', () => {
    expect(nodeShouldRunDaemonPod(node({}, [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }]), ds())).toEqual(both(false, true));
    expect(nodeShouldRunDaemonPod(node({}, [{ key: 'dedicated', value: 'db', effect: 'NoExecute' }]), ds())).toEqual(both(false, false));
    expect(nodeShouldRunDaemonPod(node({}, [{ key: 'dedicated', value: 'db', effect: 'PreferNoSchedule' }]), ds())).toEqual(both(true, true));
    const tolerating = ds({ tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoExecute' }] });
    expect(nodeShouldRunDaemonPod(node({}, [{ key: 'dedicated', value: 'db', effect: 'NoExecute' }]), tolerating)).toEqual(both(true, true));
  });

  it('the not-ready NoSchedule taint of a node that has not reported Ready yet keeps daemon pods off, as in Kubernetes', () => {
    expect(nodeShouldRunDaemonPod(node({}, [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }]), ds())).toEqual(both(false, true));
  });
});
