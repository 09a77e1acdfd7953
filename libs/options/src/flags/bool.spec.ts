import { bool } from './bool';

describe('bool', () => {
  it.each(['1', 't', 'T', 'TRUE', 'true', 'True'])('reads %s as true', (text) => {
    expect(bool.parse(text, undefined)).toBe(true);
  });

  it.each(['0', 'f', 'F', 'FALSE', 'false', 'False'])('reads %s as false', (text) => {
    expect(bool.parse(text, undefined)).toBe(false);
  });

  it.each(['', 'yes', 'tRuE', '2', 'on'])('rejects %j like strconv.ParseBool', (text) => {
    expect(() => bool.parse(text, undefined)).toThrow('invalid syntax');
  });

  it('takes an optional value and shows no type word in help', () => {
    expect(bool.requiresValue).toBe(false);
    expect(bool.name).toBe('');
  });
});
