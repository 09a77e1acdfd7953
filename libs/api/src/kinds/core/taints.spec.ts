import type { Taint } from './node';
import { findUntoleratedTaint, isDoNotScheduleTaint, matchingTolerations, minTolerationSeconds, toleratesTaint } from './taints';

const unreachable: Taint = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' };
const dedicated: Taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };

describe('tolerations', () => {
  it('match taints as Kubernetes does', () => {
    expect(toleratesTaint({ key: 'dedicated', operator: 'Equal', value: 'gpu' }, dedicated)).toBe(true);
    expect(toleratesTaint({ key: 'dedicated', value: 'gpu' }, dedicated)).toBe(true);
    expect(toleratesTaint({ key: 'dedicated', value: 'cpu' }, dedicated)).toBe(false);
    expect(toleratesTaint({ key: 'dedicated', operator: 'Exists' }, dedicated)).toBe(true);
    expect(toleratesTaint({ key: 'dedicated', operator: 'Exists', effect: 'NoExecute' }, dedicated)).toBe(false);
    expect(toleratesTaint({ operator: 'Exists' }, dedicated)).toBe(true);
    expect(toleratesTaint({ key: 'other', operator: 'Exists' }, dedicated)).toBe(false);
  });

  it('find the first untolerated taint the filter keeps', () => {
    const taints = [{ key: 'soft', effect: 'PreferNoSchedule' as const }, dedicated, unreachable];
    expect(findUntoleratedTaint(taints, [], isDoNotScheduleTaint)).toBe(dedicated);
    expect(findUntoleratedTaint(taints, [{ key: 'dedicated', operator: 'Exists' }], isDoNotScheduleTaint)).toBe(unreachable);
    expect(findUntoleratedTaint(taints, [{ operator: 'Exists' }], isDoNotScheduleTaint)).toBeUndefined();
  });

  it('say how long a pod may stay on a tainted node', () => {
    const fiveSeconds = { key: unreachable.key, operator: 'Exists' as const, effect: 'NoExecute' as const, tolerationSeconds: 5 };
    expect(matchingTolerations([unreachable], [fiveSeconds])).toEqual({ tolerated: true, matching: [fiveSeconds] });
    expect(matchingTolerations([unreachable], [])).toEqual({ tolerated: false, matching: [] });
    expect(minTolerationSeconds([fiveSeconds, { ...fiveSeconds, tolerationSeconds: 300 }])).toBe(5);
    expect(minTolerationSeconds([{ operator: 'Exists' }])).toBeUndefined();
    expect(minTolerationSeconds([{ ...fiveSeconds, tolerationSeconds: -1 }])).toBe(0);
    expect(minTolerationSeconds([])).toBe(0);
  });
});
