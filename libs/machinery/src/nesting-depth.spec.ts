import { stringify } from 'yaml';
import { jsonNestingDepth, valueNestingDepth, yamlNestingBound } from './nesting-depth';

/** A small deterministic generator of JSON values with varied shapes and depths. */
function randomValue(seed: number, maxDepth: number): unknown {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const build = (depth: number): unknown => {
    const roll = next();
    if (depth >= maxDepth || roll < 0.25) {
      const scalars = ['text', 'with: colon', '[bracket', '{brace', '- dash', '# hash', 'multi\nline', 42, true, null, ''];
      return scalars[Math.floor(next() * scalars.length)];
    }
    const size = 1 + Math.floor(next() * 3);
    if (roll < 0.6) return Array.from({ length: size }, () => build(depth + 1));
    const object: Record<string, unknown> = {};
    for (let i = 0; i < size; i++) object[`k${i}${next() < 0.2 ? ': x' : ''}`] = build(depth + 1);
    return object;
  };
  return build(0);
}

describe('jsonNestingDepth', () => {
  it('counts brackets and braces outside strings', () => {
    const text = `{"a":[{"b":"[[[{{{"}],"c":"\\"]"}${' '.repeat(2000)}`;
    expect(jsonNestingDepth(text, 5)).toBe(3);
    expect(jsonNestingDepth(`${'['.repeat(2000)}${']'.repeat(2000)}`, 1000)).toBe(1001);
  });

  it('agrees with the value it describes', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const value = randomValue(seed, 12);
      const text = JSON.stringify(value).padEnd(2000, ' ');
      expect(jsonNestingDepth(text, 100)).toBe(valueNestingDepth(value, 100));
    }
  });
});

describe('yamlNestingBound', () => {
  it('is never below the real depth, in block and flow styles', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const value = randomValue(seed, 9);
      const depth = valueNestingDepth(value, 100);
      for (const text of [stringify(value), stringify(value, { collectionStyle: 'flow' }), stringify(value, { indentSeq: false })]) {
        expect(yamlNestingBound(text.padEnd(2000, '\n'), 100)).toBeGreaterThanOrEqual(depth);
      }
    }
  });

  it('is exact for flow collections and ignores brackets in scalars, quotes, comments and block scalars', () => {
    const text = [
      'a: plain [text {with brackets',
      'b: "quoted [[["',
      "c: 'single {{{'",
      '# comment [[[[',
      'd: |',
      '  block [[[[[[',
      '  more {{{{{',
      `e: ${'['.repeat(50)}1${']'.repeat(50)}`,
    ].join('\n');
    expect(yamlNestingBound(text.padEnd(2000, '\n'), 1000)).toBe(51);
  });

  it('counts compact sequences and mappings nested on one line', () => {
    expect(yamlNestingBound(`a:\n${'- '.repeat(30)}x`.padEnd(2000, '\n'), 1000)).toBeGreaterThanOrEqual(31);
    expect(yamlNestingBound(`a:\n${'- k: '.repeat(1)}\n${'  - - k:\n'.repeat(1)}`.padEnd(2000, '\n'), 1000)).toBeGreaterThanOrEqual(4);
    // `key: - x` is a plain scalar, not a sequence.
    expect(yamlNestingBound(`a: ${'- '.repeat(30)}x`.padEnd(2000, '\n'), 1000)).toBe(1);
  });
});

describe('valueNestingDepth', () => {
  it('measures shared values once and refuses cycles', () => {
    const leaf = [[[1]]];
    const shared = { a: leaf, b: leaf, c: [leaf] };
    expect(valueNestingDepth(shared)).toBe(5);
    const cycle: unknown[] = [];
    cycle.push(cycle);
    expect(valueNestingDepth(cycle, 10)).toBe(11);
  });

  it('walks a very deep value without recursion', () => {
    let value: unknown = 1;
    for (let i = 0; i < 100_000; i++) value = [value];
    expect(valueNestingDepth(value, 1000)).toBe(1001);
  });
});
