import type { Pod } from '@svc/api';
import { podInfoOf } from '../cache/pod-info';
import { PodNominator } from './pod-nominator';

const pod = (name: string, nominatedNodeName?: string, nodeName?: string): Pod => ({
  metadata: { name, namespace: 'ns', uid: name },
  spec: { containers: [{ name: 'c', image: 'i' }], nodeName },
  status: nominatedNodeName ? { nominatedNodeName } : {},
});

const names = (n: PodNominator, node: string) => n.forNode(node).map((p) => p.pod.metadata?.name);

describe('PodNominator', () => {
  it('follows status.nominatedNodeName as pods come and change', () => {
    const n = new PodNominator();
    n.update(undefined, pod('a', 'n1'));
    n.update(undefined, pod('b'));
    expect(names(n, 'n1')).toEqual(['a']);
    n.update(pod('a', 'n1'), pod('a', 'n2'));
    expect(names(n, 'n1')).toEqual([]);
    expect(names(n, 'n2')).toEqual(['a']);
    // The status cleared: the nomination goes.
    n.update(pod('a', 'n2'), pod('a'));
    expect(names(n, 'n2')).toEqual([]);
  });

  it("keeps the scheduler's own nomination through changes made before its status write lands", () => {
    const n = new PodNominator();
    n.nominate(podInfoOf(pod('a')), 'n1');
    n.update(pod('a'), { ...pod('a'), metadata: { ...pod('a').metadata, labels: { x: 'y' } } });
    expect(names(n, 'n1')).toEqual(['a']);
    expect(n.forNode('n1')[0].pod.metadata?.labels).toEqual({ x: 'y' });
  });

  it('drops a deleted pod, and never nominates a bound one', () => {
    const n = new PodNominator();
    n.nominate(podInfoOf(pod('a')), 'n1');
    n.delete('ns/a');
    expect(n.nominatedNode('ns/a')).toBeUndefined();
    n.nominate(podInfoOf(pod('b', undefined, 'n1')), 'n1');
    expect(names(n, 'n1')).toEqual([]);
  });
});
