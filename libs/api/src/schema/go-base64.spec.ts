import { goBase64ErrorOffset } from './go-base64';

// Offsets as Go 1.23's base64.StdEncoding.DecodeString reports them (CorruptInputError).
describe('goBase64ErrorOffset', () => {
  it.each<[string, number | undefined]>([
    ['', undefined],
    ['YWJj', undefined],
    ['YWI=', undefined],
    ['YQ==', undefined],
    ['YWJj\nZGVm\r\n', undefined],
    ['YW\nI=', undefined],
    ['not base64!', 3],
    ['hello', 4],
    ['abc', 0],
    ['YQ=', 3],
    ['YQ=x', 2],
    ['Y===', 1],
    ['YWI=YWJj', 4],
    ['YWJj!', 4],
    ['é', 0],
    ['YWJjé', 4],
  ])('%j', (text, offset) => {
    expect(goBase64ErrorOffset(text)).toBe(offset);
  });
});
