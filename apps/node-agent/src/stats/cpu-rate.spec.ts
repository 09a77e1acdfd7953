import { CpuRate } from './cpu-rate';

describe('CpuRate', () => {
  it('gives nanocores between readings at least a second apart, keeps the last rate for closer ones, and starts over when the counter goes back', () => {
    const rate = new CpuRate();
    expect(rate.observe('c', 1_000_000_000, 10_000)).toBeUndefined();
    expect(rate.observe('c', 1_500_000_000, 12_000)).toBe(250_000_000);
    expect(rate.observe('c', 1_600_000_000, 12_500)).toBe(250_000_000);
    expect(rate.observe('c', 5, 14_000)).toBeUndefined();
    rate.forget(new Set());
    expect(rate.observe('c', 100, 20_000)).toBeUndefined();
  });
});
