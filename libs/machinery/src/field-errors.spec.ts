import {
  aggregateMessages,
  fieldDuplicate,
  fieldErrorBody,
  fieldErrorMessage,
  fieldErrorsMessage,
  fieldForbidden,
  fieldInternalError,
  fieldInvalid,
  fieldNotFound,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  fieldTooMany,
  fieldTypeInvalid,
  intOrStringValue,
} from './field-errors';
import { fieldPath, FieldPath } from './field-path';
import { goFormatFloat, goQuote, goSyntax } from './go-quote';

describe('FieldPath', () => {
  it('prints children, indexes and keys as Kubernetes does', () => {
    expect(fieldPath('spec', 'containers').index(0).child('image').toString()).toBe('spec.containers[0].image');
    expect(fieldPath('metadata', 'labels').key('app').toString()).toBe('metadata.labels[app]');
    expect(fieldPath('spec').child('a', 'b').index(2).index(3).child('c').toString()).toBe('spec.a.b[2][3].c');
    expect(FieldPath.root('x').key('example.com/k').toString()).toBe('x[example.com/k]');
  });

  it('is immutable', () => {
    const base = fieldPath('spec');
    base.child('x');
    expect(base.toString()).toBe('spec');
  });
});

describe('field errors', () => {
  it.each([
    [fieldRequired('metadata.name', 'name or generateName is required'), 'metadata.name: Required value: name or generateName is required'],
    [fieldRequired('spec.x'), 'spec.x: Required value'],
    [fieldInvalid('spec.replicas', -1, 'must be greater than or equal to 0'), 'spec.replicas: Invalid value: -1: must be greater than or equal to 0'],
    [fieldInvalid('spec.paused', true, 'no'), 'spec.paused: Invalid value: true: no'],
    [fieldInvalid('spec.x', null, 'must be set'), 'spec.x: Invalid value: null: must be set'],
    [fieldInvalid('spec.x', ['a', 'b'], 'bad'), 'spec.x: Invalid value: []string{"a", "b"}: bad'],
    [fieldInvalid('spec.x', { a: 1 }, 'bad'), 'spec.x: Invalid value: {"a":1}: bad'],
    [fieldInvalid('spec.x', undefined, 'bad'), 'spec.x: Invalid value: bad'],
    [fieldTypeInvalid('spec.replicas', 'three', 'must be of type integer'), 'spec.replicas: Invalid value: "three": must be of type integer'],
    [fieldNotFound('spec.x', 'y'), 'spec.x: Not found: "y"'],
    [fieldDuplicate('spec.ports[1].port', 80), 'spec.ports[1].port: Duplicate value: 80'],
    [fieldNotSupported('spec.type', 'X', ['A', 'B']), 'spec.type: Unsupported value: "X": supported values: "A", "B"'],
    [fieldNotSupported('spec.type', 'X', []), 'spec.type: Unsupported value: "X"'],
    [fieldForbidden('spec.selector', 'field is immutable'), 'spec.selector: Forbidden: field is immutable'],
    [fieldTooLong('metadata.name', 253), 'metadata.name: Too long: may not be more than 253 bytes'],
    [fieldTooLong('x', 1), 'x: Too long: may not be more than 1 bytes'],
    [fieldTooLong('x', -1), 'x: Too long: value is too long'],
    [fieldTooMany('spec.items', 5, 3), 'spec.items: Too many: 5: must have at most 3 items'],
    [fieldTooMany('spec.items', -1, -1), 'spec.items: Too many: has too many items'],
    [fieldInvalid('spec.maxSurge', intOrStringValue('5'), 'bad'), 'spec.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"5"}: bad'],
    [fieldInvalid('spec.maxSurge', intOrStringValue(-1), 'bad'), 'spec.maxSurge: Invalid value: intstr.IntOrString{Type:0, IntVal:-1, StrVal:""}: bad'],
    [fieldInternalError('spec', 'oops'), 'spec: Internal error: oops'],
  ])('%j prints %j', (error, message) => {
    expect(fieldErrorMessage(error)).toBe(message);
    expect(`${error.field}: ${fieldErrorBody(error)}`).toBe(message);
  });

  it('accepts FieldPath objects', () => {
    expect(fieldRequired(fieldPath('spec', 'containers').index(0).child('name')).field).toBe('spec.containers[0].name');
  });

  it('aggregates like Kubernetes', () => {
    expect(aggregateMessages([])).toBe('');
    expect(aggregateMessages(['a'])).toBe('a');
    expect(aggregateMessages(['a', 'b', 'a'])).toBe('[a, b]');
    expect(aggregateMessages(['a', 'a'])).toBe('a');
    expect(fieldErrorsMessage([fieldRequired('a'), fieldRequired('b')])).toBe('[a: Required value, b: Required value]');
  });
});

describe('goQuote', () => {
  it.each([
    ['plain', '"plain"'],
    ['a"b', '"a\\"b"'],
    ['a\\b', '"a\\\\b"'],
    ['\n\t\r', '"\\n\\t\\r"'],
    ['\x01\x7f', '"\\x01\\x7f"'],
    ['héllo ☃', '"héllo ☃"'],
  ])('%j -> %s', (input, quoted) => {
    expect(goQuote(input)).toBe(quoted);
  });
});

describe("Go's %v of a float64 and %#v of a decoded JSON value", () => {
  it.each([
    [1.5, '1.5'],
    [65535, '65535'],
    [100000, '100000'],
    [1000000, '1e+06'],
    [1000000.5, '1.0000005e+06'],
    [123456789, '1.23456789e+08'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [-2.5, '-2.5'],
    [0, '0'],
  ])('%p prints %s', (value, text) => {
    expect(goFormatFloat(value)).toBe(text);
  });

  it('prints maps with sorted keys, lists, numbers, strings and nil as Go does', () => {
    expect(goSyntax({ type: 'Ready' })).toBe('map[string]interface {}{"type":"Ready"}');
    expect(goSyntax({ port: 80, protocol: 'TCP' })).toBe('map[string]interface {}{"port":80, "protocol":"TCP"}');
    expect(goSyntax({})).toBe('map[string]interface {}{}');
    expect(goSyntax(['a', 1, true, null])).toBe('[]interface {}{"a", 1, true, interface {}(nil)}');
  });
});
