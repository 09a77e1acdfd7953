import { GENERATED_NAME_ALPHABET, generateName, MAX_GENERATED_NAME_LENGTH } from './generate-name';
import { isDNS1123Label } from './name-validation';

describe('generateName', () => {
  it('appends five characters from the alphabet', () => {
    for (let i = 0; i < 200; i++) {
      const name = generateName('web-');
      expect(name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    }
  });

  it('uses the random source for each character', () => {
    const picks = [0, 1, 2, 25, 26];
    let i = 0;
    expect(generateName('p-', () => picks[i++])).toBe('p-bcd89');
    expect(GENERATED_NAME_ALPHABET).toHaveLength(27);
  });

  it('truncates the base to 58 characters so the name fits 63', () => {
    expect(MAX_GENERATED_NAME_LENGTH).toBe(58);
    const base = 'a'.repeat(100);
    const name = generateName(base);
    expect(name).toHaveLength(63);
    expect(name.startsWith('a'.repeat(58))).toBe(true);
    expect(isDNS1123Label(name)).toEqual([]);
    expect(generateName('a'.repeat(58))).toHaveLength(63);
    expect(generateName('a'.repeat(57))).toHaveLength(62);
  });

  it('works with an empty base', () => {
    expect(generateName('')).toHaveLength(5);
  });

  it('rarely repeats', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) seen.add(generateName('x-'));
    expect(seen.size).toBeGreaterThan(990);
  });
});
