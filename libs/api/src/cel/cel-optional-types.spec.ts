import type { JsonSchema } from '../schema/json-schema';
import { ruleCost } from './cel-cost.spec';
import { compileCel } from './cel-environment';
import { actualCost } from './cel-runtime-cost.spec';
import { CelOptional } from './cel-values';

// cel-go's optional types as Kubernetes 1.32 enables them (cel.OptionalTypes, since 1.28). The
// expressions and figures are those of apiextensions-apiserver's validation and cost stability tests
// (pkg/apiserver/schema/cel/validation_test.go and celcoststability_test.go, "optionals").

const object = (properties: Record<string, JsonSchema>): JsonSchema => ({ type: 'object', properties });
const string: JsonSchema = { type: 'string' };
const schema = object({
  obj: object({ field: string, absentField: string }),
  m: { type: 'object', additionalProperties: string },
  l: { type: 'array', items: string },
});
const self = { obj: { field: 'a' }, m: { k: 'v' }, l: ['a'] };

function evaluate(source: string, bindings: Record<string, unknown> = {}) {
  return compileCel(source, ['self']).evaluate(bindings);
}

describe('optional types', () => {
  const validSelf = { presentObj: { presentStr: 'value' }, m: { k: 'v' }, l: ['a'] };
  it.each([
    "self.?presentObj.?presentStr == optional.of('value')",
    "self.presentObj.?presentStr == optional.of('value')",
    "self.presentObj.?presentStr.or(optional.of('nope')) == optional.of('value')",
    "self.presentObj.?presentStr.orValue('') == 'value'",
    'self.presentObj.?presentStr.hasValue() == true',
    "self.presentObj.?presentStr.optMap(v, v == 'value').hasValue()",
    'self.?absentObj.?absentStr == optional.none()',
    "self.?absentObj.?absentStr.or(optional.of('nope')) == optional.of('nope')",
    "self.?absentObj.?absentStr.orValue('nope') == 'nope'",
    'self.?absentObj.?absentStr.hasValue() == false',
    "self.?absentObj.?absentStr.optMap(v, v == 'value').hasValue() == false",
    "self.m[?'k'] == optional.of('v')",
    "self.m[?'k'].or(optional.of('nope')) == optional.of('v')",
    "self.m[?'k'].orValue('') == 'v'",
    "self.m[?'k'].hasValue() == true",
    "self.m[?'k'].optMap(v, v == 'v').hasValue()",
    "self.m[?'x'] == optional.none()",
    "self.m[?'x'].or(optional.of('nope')) == optional.of('nope')",
    "self.m[?'x'].orValue('nope') == 'nope'",
    "self.m[?'x'].hasValue() == false",
    "self.l[?0] == optional.of('a')",
    'self.l[?1] == optional.none()',
    "self.l[?0].orValue('') == 'a'",
    'self.l[?0].hasValue() == true',
    "self.l[?0].optMap(v, v == 'a').hasValue()",
    "self.l[?1].or(optional.of('nope')) == optional.of('nope')",
    "self.l[?1].orValue('nope') == 'nope'",
    'optional.ofNonZeroValue(1).hasValue()',
    'optional.ofNonZeroValue(uint(1)).hasValue()',
    'optional.ofNonZeroValue(1.1).hasValue()',
    "optional.ofNonZeroValue('a').hasValue()",
    'optional.ofNonZeroValue(true).hasValue()',
    "optional.ofNonZeroValue(['a']).hasValue()",
    "optional.ofNonZeroValue({'k': 'v'}).hasValue()",
    "optional.ofNonZeroValue(timestamp('2011-08-18T00:00:00.000+01:00')).hasValue()",
    "optional.ofNonZeroValue(duration('19h3m37s10ms')).hasValue()",
    'optional.ofNonZeroValue(null) == optional.none()',
    'optional.ofNonZeroValue(0) == optional.none()',
    'optional.ofNonZeroValue(uint(0)) == optional.none()',
    'optional.ofNonZeroValue(0.0) == optional.none()',
    "optional.ofNonZeroValue('') == optional.none()",
    'optional.ofNonZeroValue(false) == optional.none()',
    'optional.ofNonZeroValue([]) == optional.none()',
    'optional.ofNonZeroValue({}) == optional.none()',
    "optional.ofNonZeroValue(timestamp('0001-01-01T00:00:00.000+00:00')) == optional.none()",
    "optional.ofNonZeroValue(duration('0s')) == optional.none()",
    "{?'k': optional.none(), 'k2': 'v2'} == {'k2': 'v2'}",
    "{?'k': optional.of('v'), 'k2': 'v2'} == {'k': 'v', 'k2': 'v2'}",
    "['a', ?optional.none(), 'c'] == ['a', 'c']",
    "['a', ?optional.of('v'), 'c'] == ['a', 'v', 'c']",
    // cel-go's own: selections after an optional one are optional too, and values compare across numeric types.
    "self.?presentObj.presentStr == optional.of('value')",
    'self.?absentObj.absentStr == optional.none()',
    'optional.of(1) != optional.of(2)',
    'optional.none() == optional.none()',
    'optional.of(3).optFlatMap(x, optional.of(x * 2)) == optional.of(6)',
    'optional.of(3).optFlatMap(x, optional.none()) == optional.none()',
    'optional.none().optMap(x, x + 1) == optional.none()',
    "[?self.m[?'k'], ?self.m[?'x']] == ['v']",
    'type(optional.none()) == optional_type',
    '[optional.none()] == [optional.none()]',
  ])('%s is true', (rule) => {
    expect(evaluate(rule, { self: validSelf })).toEqual({ ok: true, value: true });
  });

  it.each([
    // An optional is never null: cel-go's equality gives false, whatever the optional holds.
    ['optional.none() == null', false],
    ['optional.of(1) == null', false],
    ['null == optional.none()', false],
    ['optional.none() != null', true],
  ])('%s is %s', (rule, value) => {
    expect(evaluate(rule)).toEqual({ ok: true, value });
  });

  it.each([
    ['self.absentObj.?absentStr == optional.none()', 'no such key: absentObj'],
    ['optional.none().value()', 'optional.none() dereference'],
  ])('%s fails with %s', (rule, error) => {
    expect(evaluate(rule, { self: validSelf })).toEqual({ ok: false, error: expect.stringContaining(error) });
  });

  it.each([
    ['optional.of(1).optMap(1, 2)', 'optMap() variable name must be a simple identifier'],
    // Kubernetes' checker refuses what cel-go's runtime would only fail or answer false on.
    ['optional.of(1) == optional.of(1.0)', "found no matching overload for '_==_' applied to '(optional_type(int), optional_type(double))'"],
    ['optional.of(1) == 1', "found no matching overload for '_==_' applied to '(optional_type(int), int)'"],
    ['[?1]', "expected type 'optional_type(int)' but found 'int'"],
    ['optional.foo(1)', "undeclared reference to 'optional'"],
    ['x.?y', "undeclared reference to 'x'"],
  ])('%s does not compile: %s', (rule, error) => {
    expect(() => compileCel(rule, ['self'])).toThrow(error);
  });

  it('keeps `?` of a conditional and inside strings as they are', () => {
    expect(evaluate("true ? 'a.?b' : '[?x]'")).toEqual({ ok: true, value: 'a.?b' });
    expect(evaluate("{'k': true ? 1 : 2}['k']")).toEqual({ ok: true, value: 1n });
    expect(evaluate("{?'k': true ? optional.of(1) : optional.none()}['k']")).toEqual({ ok: true, value: 1n });
  });

  it('returns optional values to the host', () => {
    const out = evaluate("self.m[?'k']", { self });
    expect(out.ok && out.value instanceof CelOptional && out.value.value()).toBe('v');
  });

  // Kubernetes' figures: the estimate, and what each evaluation of the object above costs.
  it.each([
    ["optional.of('a') != optional.of('b')", 1844674407370955266n, 3],
    ["optional.of('a') != optional.none()", 1844674407370955266n, 3],
    ["optional.of('a').hasValue()", 2n, 2],
    ["optional.of('a').or(optional.of('a')).hasValue()", 4n, 2],
    ["optional.none().or(optional.of('a')).hasValue()", 4n, 3],
    ["optional.of('a').optMap(v, v == 'value').hasValue()", 17n, 8],
    ["self.obj.?field == optional.of('a')", 1844674407370955268n, 5],
    ['self.obj.?absentField == optional.none()', 1844674407370955268n, 4],
    ["self.obj.?field.orValue('v') == 'a'", 5n, 4],
    ["self.m[?'k'] == optional.of('v')", 1844674407370955268n, 5],
    ["self.l[?0] == optional.of('a')", 1844674407370955268n, 5],
    ['optional.ofNonZeroValue(1).hasValue()', 2n, 2],
  ])('%s costs an estimated %s and %s when run', (rule, estimated, actual) => {
    expect(ruleCost(schema, rule)).toBe(estimated);
    expect(actualCost(rule, self)).toBe(actual);
  });
});
