import { canonicalQuantity, quantityMilliValue, quantityNanoValue, quantityValue } from './quantity';

describe('resource quantities', () => {
  it.each([
    ['100m', 100, 1],
    ['1', 1000, 1],
    ['1.5', 1500, 2],
    ['0.1', 100, 1],
    ['.5', 500, 1],
    ['2k', 2_000_000, 2000],
    ['1Ki', 1_024_000, 1024],
    ['1Gi', 1_073_741_824_000, 1_073_741_824],
    ['1e3', 1_000_000, 1000],
    ['5E-1', 500, 1],
    ['1n', 1, 1],
    [250, 250_000, 250],
    ['0', 0, 0],
  ])('%p is %p thousandths and %p rounded up', (quantity, milli, whole) => {
    expect(quantityMilliValue(quantity)).toBe(milli);
    expect(quantityValue(quantity)).toBe(whole);
  });

  it('refuses what is not a quantity', () => {
    for (const bad of ['', 'abc', '1x', '--1', '1Kb', null, {}, Number.NaN, Infinity]) expect(quantityMilliValue(bad)).toBeUndefined();
  });

  it('saturates huge values at once instead of computing them', () => {
    const started = Date.now();
    expect(quantityValue('1e999999999')).toBe(Number.MAX_SAFE_INTEGER);
    expect(quantityValue('9Ei')).toBe(Number.MAX_SAFE_INTEGER);
    expect(quantityMilliValue('1e-999999999')).toBe(1);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('holds billionths exactly, for comparing and adding as Kubernetes does', () => {
    expect(quantityNanoValue('700m')).toBe(quantityNanoValue('0.7'));
    expect(quantityNanoValue('1Gi')).toBe(1_073_741_824_000_000_000n);
    expect(quantityNanoValue('1500u')).toBe(1_500_000n);
    expect(quantityNanoValue('0.5n')).toBe(1n);
    expect(quantityNanoValue('-2')).toBe(-2_000_000_000n);
    expect(quantityNanoValue('1e999999999')).toBe(quantityNanoValue('1e41'));
    expect(quantityNanoValue('lots')).toBeUndefined();
  });
});

describe('canonicalQuantity', () => {
  it.each([
    ['0.5', '500m'],
    ['500m', '500m'],
    ['2000m', '2'],
    ['1500m', '1500m'],
    ['1000', '1k'],
    ['10', '10'],
    ['1024Mi', '1Gi'],
    ['1536Mi', '1536Mi'],
    ['1.5Gi', '1536Mi'],
    ['512Ki', '512Ki'],
    ['0.5Ki', '512'],
    ['0.3Ki', '307200m'],
    ['1e3', '1e3'],
    ['1E3', '1e3'],
    ['1.5e3', '1500'],
    ['100e-3', '100e-3'],
    ['0.0000000001', '1n'],
    ['-0.5', '-500m'],
    ['0Gi', '0'],
    [' 1Gi ', '1Gi'],
    [0.25, '250m'],
    [2, '2'],
    ['128974848', '128974848'],
    ['129e6', '129e6'],
    ['129000000', '129M'],
    ['123Mi', '123Mi'],
  ])('%p is written %p', (input, expected) => {
    expect(canonicalQuantity(input)).toBe(expected);
  });

  it('refuses what is not a quantity', () => {
    expect(canonicalQuantity('1.2.3')).toBeUndefined();
    expect(canonicalQuantity({})).toBeUndefined();
    expect(canonicalQuantity(Number.NaN)).toBeUndefined();
  });
});
