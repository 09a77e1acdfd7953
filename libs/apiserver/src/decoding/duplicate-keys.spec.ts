import { findDuplicateJsonKeys } from './duplicate-keys';

describe('findDuplicateJsonKeys', () => {
  it('finds nothing in a document without repeated keys', () => {
    expect(findDuplicateJsonKeys('{"a":1,"b":{"a":2},"c":[{"a":1},{"a":2}]}')).toEqual([]);
  });

  it('names a repeated key by its field path', () => {
    expect(findDuplicateJsonKeys('{"metadata":{"name":"a","name":"b"}}')).toEqual(['metadata.name']);
    expect(findDuplicateJsonKeys('{"a":1,"a":2}')).toEqual(['a']);
  });

  it('names keys inside list items with their index', () => {
    const text = '{"spec":{"containers":[{"name":"x"},{"name":"y","image":"i","image":"j"}]}}';
    expect(findDuplicateJsonKeys(text)).toEqual(['spec.containers[1].image']);
  });

  it('reports every repetition, in document order', () => {
    expect(findDuplicateJsonKeys('{"x":1,"x":2,"y":{"z":1,"z":2},"x":3}')).toEqual(['x', 'y.z', 'x']);
  });

  it('is not fooled by keys inside strings, escapes or nested arrays', () => {
    expect(findDuplicateJsonKeys('{"a":"\\"a\\":1","b":[[{"c":1}],[{"c":2}]]}')).toEqual([]);
    expect(findDuplicateJsonKeys('{"a\\u0062":1,"ab":2}')).toEqual(['ab']);
    expect(findDuplicateJsonKeys('{"s":"x\\\\","s":1}')).toEqual(['s']);
  });

  it('handles whitespace and scalars at the top', () => {
    expect(findDuplicateJsonKeys(' { "a" : 1 ,\n "a" : [ 1 , 2 ] } ')).toEqual(['a']);
    expect(findDuplicateJsonKeys('[1,2]')).toEqual([]);
    expect(findDuplicateJsonKeys('"text"')).toEqual([]);
  });
});
