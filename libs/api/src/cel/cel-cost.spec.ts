import type { JsonSchema } from '../schema/json-schema';
import { declaredSizes, estimateCost } from './cel-cost';
import { schemaDeclType } from './cel-decl-type';
import { compileCel } from './cel-environment';

// Kubernetes 1.32's own figures: apiextensions-apiserver's TestCelEstimatedCostStability
// (pkg/apiserver/schema/cel/celcoststability_test.go), each rule on the root of its schema.

const integer: JsonSchema = { type: 'integer' };
const number: JsonSchema = { type: 'number' };
const string: JsonSchema = { type: 'string' };
const bytes: JsonSchema = { type: 'string', format: 'byte' };
const boolean: JsonSchema = { type: 'boolean' };
const duration: JsonSchema = { type: 'string', format: 'duration' };
const date: JsonSchema = { type: 'string', format: 'date' };
const dateTime: JsonSchema = { type: 'string', format: 'date-time' };
const intOrString: JsonSchema = { 'x-svc-int-or-string': true };
const list = (items: JsonSchema): JsonSchema => ({ type: 'array', items });
const listSet = (items: JsonSchema): JsonSchema => ({ type: 'array', 'x-svc-list-type': 'set', items });
const listMap = (keys: string[], items: JsonSchema): JsonSchema => ({ type: 'array', 'x-svc-list-type': 'map', 'x-svc-list-map-keys': keys, items });
const map = (values: JsonSchema): JsonSchema => ({ type: 'object', additionalProperties: values });
const object = (properties: Record<string, JsonSchema>): JsonSchema => ({ type: 'object', properties });
const vals = (...schemas: JsonSchema[]): JsonSchema => object(Object.fromEntries(schemas.map((s, i) => [`val${i + 1}`, s])));
const equalsThemselvesAndLiteral = (a: string, b: string, literal: string) => `${a} == ${literal} && ${literal} == ${a} && ${a} == ${b}`;

/** The estimated cost of `rule` on the root of `schema`, as Kubernetes' Compile gives it (MaxCost). */
export function ruleCost(schema: JsonSchema, rule: string, isResourceRoot = false): bigint {
  const declType = schemaDeclType(schema, isResourceRoot)!;
  return estimateCost(compileCel(rule, ['self', 'oldSelf']), { self: declType, oldSelf: declType }, declaredSizes(declType));
}

const cases: Array<{ name: string; schema: JsonSchema; costs: Record<string, number | bigint> }> = [
  {
    name: 'integers',
    schema: vals(integer, integer, integer, integer, integer, integer),
    costs: {
      [equalsThemselvesAndLiteral('self.val1', 'self.val2', '9223372036854775807')]: 8,
      'self.val1 == self.val6': 4,
      'type(self.val1) == int': 4,
      'self.val3 + 1 == 2147483647 + 1': 5,
    },
  },
  {
    name: 'numbers',
    schema: vals(number, number, number, number, number, number, number),
    costs: { 'self.val1 == self.val6': 4, 'type(self.val1) == double': 4, 'self.val7 == 1.0': 2 },
  },
  {
    name: 'numeric comparisons',
    schema: vals(integer, number, number, number, number, number, number),
    costs: { 'double(self.val1) < self.val4': 6, 'self.val1 < int(self.val4)': 6, 'double(5) < 10.0': 2, '5 < int(10.0)': 2, 'double(self.val1) < 10.0': 4 },
  },
  {
    name: 'unicode strings',
    schema: vals(string, string),
    costs: {
      [equalsThemselvesAndLiteral('self.val1', 'self.val2', "'Rook takes 👑'")]: 314585,
      "self.val1.startsWith('Rook')": 3,
      "!self.val1.startsWith('knight')": 4,
      "self.val1.matches('^[^0-9]*$')": 943721,
      "!self.val1.matches('^[0-9]*$')": 629149,
      'type(self.val1) == string': 4,
      'size(self.val1) == 12': 4,
      "self.val1.charAt(3) == 'k'": 4,
      "self.val1.indexOf('o') == 1": 314576,
      "self.val1.indexOf('o', 2) == 2": 314576,
      "self.val1.replace(' ', 'x') == 'Rookxtakesx👑'": 629150,
      "self.val1.replace(' ', 'x', 1) == 'Rookxtakes 👑'": 629150,
      "self.val1.split(' ') == ['Rook', 'takes', '👑']": 629159,
      "self.val1.split(' ', 2) == ['Rook', 'takes 👑']": 629159,
      "self.val1.substring(5) == 'takes 👑'": 314576,
      "self.val1.substring(0, 4) == 'Rook'": 314576,
      "self.val1.substring(4, 10).trim() == 'takes'": 629149,
      "self.val1.upperAscii() == 'ROOK TAKES 👑'": 314577,
      "self.val1.lowerAscii() == 'rook takes 👑'": 314577,
      'self.val1.lowerAscii() == self.val1.lowerAscii()': 943723,
    },
  },
  { name: 'escaped strings', schema: vals(string, string), costs: { "self.val1 == '''l1\nl2'''": 3 } },
  {
    name: 'bytes',
    schema: vals(bytes, bytes),
    costs: { 'self.val1 == self.val2': 314577, "self.val1 == b'AB'": 3, 'type(self.val1) == bytes': 4, 'size(self.val1) == 2': 4 },
  },
  {
    name: 'booleans',
    schema: vals(boolean, boolean, boolean, boolean),
    costs: { [equalsThemselvesAndLiteral('self.val1', 'self.val2', 'true')]: 8, 'self.val1 != self.val4': 4, 'type(self.val1) == bool': 4 },
  },
  {
    name: 'duration format',
    schema: vals(duration, duration),
    costs: {
      [equalsThemselvesAndLiteral('self.val1', 'self.val2', "duration('1h2m3s4ms')")]: 16,
      "self.val1 == duration('1h2m') + duration('3s4ms')": 6,
      'self.val1.getHours() == 1': 4,
    },
  },
  { name: 'date format', schema: vals(date, date), costs: { 'self.val1.getDate() == 16': 4 } },
  {
    name: 'date-time format',
    schema: vals(dateTime, dateTime),
    costs: { "self.val1 == timestamp('2011-08-18T00:00:00.000+01:00') + duration('19h3m37s10ms')": 6, "self.val1.getDate('01:00') == 18": 4 },
  },
  {
    name: 'enums',
    schema: object({ enumStr: { type: 'string', enum: ['Pending', 'Available', 'Bound', 'Released', 'Failed'] } }),
    costs: { "self.enumStr == 'Pending'": 3, "self.enumStr in ['Pending', 'Available']": 14 },
  },
  {
    name: 'conversions',
    schema: vals(integer, number, number, number, boolean, string, bytes, string, duration, string, dateTime, string, date),
    costs: {
      'int(self.val2) == self.val1': 5,
      'double(self.val1) == self.val2': 5,
      'bytes(self.val6) == self.val7': 629150,
      'string(self.val1) == self.val6': 314578,
      "string(self.val4) == '10.5'": 4,
      'string(self.val7) == self.val6': 629150,
      'duration(self.val8) == self.val9': 6,
      'timestamp(self.val10) == self.val11': 6,
      'string(self.val11) == self.val10': 314578,
    },
  },
  {
    name: 'lists',
    schema: vals(list(integer), list(integer)),
    costs: {
      [equalsThemselvesAndLiteral('self.val1', 'self.val2', '[1, 2, 3]')]: 157317,
      '1 in self.val1': 1572865,
      'self.val2[0] in self.val1': 1572868,
      '!(0 in self.val1)': 1572866,
      'self.val1 + self.val2 == [1, 2, 3, 1, 2, 3]': 16,
      'self.val1 + [4, 5] == [1, 2, 3, 4, 5]': 24,
      'has(self.val1)': 1,
      'has(self.val1) && has(self.val2)': 2,
      '!has(self.val1)': 2,
      'self.val1.all(k, size(self.val1) > 0)': 11010044,
      'self.val1.exists_one(k, self.val1 == [2])': 23592949,
      '!self.val1.exists_one(k, size(self.val1) > 0)': 9437183,
      'size(self.val1) == 2': 4,
      'size(self.val1.filter(k, size(self.val1) > 1)) == 1': 26738686,
    },
  },
  {
    name: 'listSets',
    schema: vals(listSet(string), listSet(string)),
    costs: {
      "self.val1 == ['c', 'b', 'a']": 13,
      'self.val1 == self.val2': 104862,
      "'a' in self.val1": 1048577,
      'self.val2[0] in self.val1': 1048580,
      "self.val1 + ['c', 'd'] == ['a', 'b', 'c', 'd']": 24,
      'self.val1.all(k, size(self.val1) > 0)': 7340028,
      "self.val1.exists_one(k, self.val1 == ['a'])": 15728629,
      'size(self.val1.filter(k, size(self.val1) > 1)) == 1': 17825790,
    },
  },
  {
    name: 'listMaps',
    schema: object({ objs: list(listMap(['k'], object({ k: string, v: string }))) }),
    costs: {
      'self.objs[0] == self.objs[1]': 104864,
      'self.objs[0] + self.objs[2] == self.objs[2]': 104868,
      'self.objs[0] == [self.objs[0][0], self.objs[0][1]]': 22,
      'self.objs[2] + [self.objs[0][0], self.objs[0][1]] == self.objs[0]': 104883,
      'size(self.objs[0] + [self.objs[3][0]]) == 3': 20,
      'self.objs[0].all(k, size(self.objs[0]) > 0)': 8388604,
      'self.objs[0].exists_one(k, size(self.objs[0]) > 0)': 7340030,
      'size(self.objs[0]) == 2': 5,
      'size(self.objs[0].filter(k, size(self.objs[0]) > 1)) == 1': 18874366,
    },
  },
  {
    name: 'maps',
    schema: vals(map(string), map(string)),
    costs: {
      'self.val1 == self.val2': 39326,
      "'k1' in self.val1": 3,
      "!('k3' in self.val1)": 4,
      "self.val1 == {'k1': 'a', 'k2': 'b'}": 33,
      'self.val1.all(k, size(self.val1) > 0)': 2752508,
      'self.val1.exists_one(k, size(self.val1) > 0)': 2359294,
      'size(self.val1.filter(k, size(self.val1) > 1)) == 1': 6684670,
    },
  },
  { name: 'objects', schema: object({ objs: list(object({ f1: string, f2: string })) }), costs: { 'self.objs[0] == self.objs[1]': 6 } },
  {
    name: 'object access',
    schema: object({ a: object({ b: integer, c: integer }), a1: object({ b1: object({ c1: integer }), d2: object({ e2: integer }) }) }),
    costs: {
      'has(self.a.b)': 2,
      'has(self.a1.b1.c1)': 3,
      '!(has(self.a1.d2) && has(self.a1.d2.e2))': 6,
      '!has(self.a1.d2)': 3,
      'has(self.a) && has(self.a1)': 2,
    },
  },
  {
    name: 'map access',
    schema: object({ val: map(integer) }),
    costs: {
      "!('a' in self.val)": 4,
      '!has(self.val.a)': 3,
      'has(self.val.b)': 2,
      'self.val.all(k, self.val[k] > 0)': 3595115,
      'self.val.exists_one(k, self.val[k] == 2)': 2696338,
      '!self.val.exists_one(k, self.val[k] > 0)': 3145728,
      'size(self.val.filter(k, self.val[k] > 1)) == 1': 8089017,
    },
  },
  {
    name: 'listMap access',
    schema: object({ listMap: listMap(['k'], object({ k: string, v: string, v2: string })) }),
    costs: {
      'has(self.listMap[0].v)': 3,
      "self.listMap.all(m, m.k.startsWith('a'))": 6291453,
      "self.listMap.all(m, !has(m.v2) || m.v2 == 'z')": 8388603,
      "self.listMap.exists(m, m.k.endsWith('1'))": 7340028,
      "self.listMap.exists_one(m, m.k == 'a3')": 5242879,
      "!self.listMap.exists_one(m, m.k.startsWith('a'))": 5242880,
      "size(self.listMap.filter(m, m.k == 'a1')) == 1": 16777215,
      "self.listMap.exists(m, m.k == 'a1' && m.v == 'b1')": 10485753,
      "self.listMap.map(m, m.v).exists(v, v == 'b1')": 19922939,
      "self.listMap.filter(m, has(m.v2) && m.v2 == 'z').size() == 1": 17825790,
      "self.listMap.map(m, has(m.v2) && m.v2 == 'z', m.v2).size() == 1": 18874365,
      "self.listMap.filter(m, has(m.v2) && m.v2 == 'z').map(m, m.v2).size() == 1": 32505851,
    },
  },
  {
    name: 'list access',
    schema: object({ array: list(integer) }),
    costs: {
      '2 in self.array': 1572865,
      'self.array.all(e, e > 0)': 7864318,
      'self.array.exists(e, e > 2)': 9437181,
      'self.array.exists_one(e, e > 4)': 6291456,
      '!self.array.exists_one(e, e == 2)': 4718594,
      'size(self.array.filter(e, e%2 == 0)) == 3': 25165823,
      'self.array.map(e, e * 20).filter(e, e > 50).exists(e, e == 60)': 53477367,
    },
  },
  {
    name: 'typemeta and objectmeta access specified',
    schema: object({ kind: string, apiVersion: string, metadata: object({ name: string, generateName: string }) }),
    costs: { "self.kind == 'Pod'": 3, "self.metadata.name == 'foo'": 4, "self.metadata.generateName == 'pickItForMe'": 5 },
  },
  {
    name: 'embedded object',
    schema: object({ embedded: { type: 'object', 'x-svc-embedded-resource': true } }),
    costs: { "self.embedded.kind == 'Pod'": 4, "self.embedded.metadata.name == 'foo'": 5, "self.embedded.metadata.generateName == 'pickItForMe'": 6 },
  },
  {
    name: 'int-or-string',
    schema: object({ something: intOrString }),
    costs: {
      "type(self.something) == int ? self.something == 1 : self.something == '25%'": 7,
      "type(self.something) == string && self.something == '25%'": 7,
      "self.something == '25%'": 3,
      'self.something != 1': 3,
      "self.something == 1 || self.something == '25%'": 6,
      "self.something != 'some string'": 4,
      "self.something != ['anything']": 13,
    },
  },
  {
    name: 'percent comparison using intOrString',
    schema: object({ min: intOrString, current: integer, available: integer }),
    costs: {
      "type(self.min) == string && self.min.matches(r'(\\d+(\\.\\d+)?%)')": 1258298,
      "type(self.min) == int ? self.current <= self.min : double(self.current) / double(self.available) >= double(self.min.replace('%', '')) / 100.0": 629162,
    },
  },
  {
    name: 'quantity',
    schema: vals(string, string),
    costs: {
      'isQuantity(self.val1)': 314575,
      'isQuantity("200M")': 1,
      'quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")': 6,
      'quantity(self.val1).isLessThan(quantity(self.val2))': 629151,
      'quantity("50M").isLessThan(quantity("100M"))': 3,
      'quantity("200M").compareTo(quantity("0.2G")) == 0': 4,
      'quantity("50").isInteger()': 2,
      'quantity(self.val1).isInteger()': 314576,
    },
  },
];

describe('estimated cost of CRD validation rules, against Kubernetes 1.32', () => {
  for (const { name, schema, costs } of cases) {
    describe(name, () => {
      for (const [rule, expected] of Object.entries(costs)) {
        it(rule, () => {
          expect(ruleCost(schema, rule)).toBe(BigInt(expected));
        });
      }
    });
  }
});
