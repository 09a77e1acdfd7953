import { maxSurge, maxUnavailable, minAvailable, resolveFenceposts, valueFromIntOrPercent } from './rolling-update-bounds';
import { deployment } from './testing/fixtures';

describe('rolling update bounds', () => {
  it('reads absolute values and percentages, rounding as asked', () => {
    expect(valueFromIntOrPercent(3, 10, true)).toBe(3);
    expect(valueFromIntOrPercent('25%', 10, true)).toBe(3);
    expect(valueFromIntOrPercent('25%', 10, false)).toBe(2);
    expect(valueFromIntOrPercent('100%', 7, false)).toBe(7);
    expect(valueFromIntOrPercent('30%', 10, true)).toBe(3);
    expect(() => valueFromIntOrPercent('3', 10, true)).toThrow(/not a percentage/);
  });

  // Kubernetes' ResolveFenceposts examples.
  it.each([
    ['0%', '1%', 2, 0, 1],
    ['0%', '1%', 1, 0, 1],
    ['1%', '25%', 2, 1, 0],
    ['1%', '25%', 1, 1, 0],
    ['1%', '0%', 2, 1, 0],
    [0, 0, 5, 0, 1],
    ['25%', '25%', 10, 3, 2],
    [2, '50%', 5, 2, 2],
  ] as const)('resolves maxSurge %p and maxUnavailable %p of %p to %p and %p', (surge, unavailable, desired, s, u) => {
    expect(resolveFenceposts(surge, unavailable, desired)).toEqual({ surge: s, unavailable: u });
  });

  it('caps maxUnavailable at spec.replicas and gives Recreate neither', () => {
    expect(maxUnavailable(deployment(3, { maxSurge: 0, maxUnavailable: 5 }))).toBe(3);
    expect(maxUnavailable(deployment(0))).toBe(0);
    expect(minAvailable(deployment(10))).toBe(8);
    expect(maxSurge(deployment(10))).toBe(3);
    const recreate = deployment(10, { recreate: true });
    expect([maxSurge(recreate), maxUnavailable(recreate), minAvailable(recreate)]).toEqual([0, 0, 0]);
  });
});
