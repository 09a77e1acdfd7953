import { compileCel } from './cel-environment';

// Kubernetes 1.32's actual costs: apiextensions-apiserver's TestCelCostStability
// (pkg/apiserver/schema/cel/celcoststability_test.go), each rule on the root with the object given.

function toCel(value: unknown): unknown {
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  if (Array.isArray(value)) return value.map(toCel);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toCel(v)]));
  return value;
}

const vals = (...values: unknown[]) => Object.fromEntries(values.map((v, i) => [`val${i + 1}`, v]));
const equalsThemselvesAndLiteral = (a: string, b: string, literal: string) => `${a} == ${literal} && ${literal} == ${a} && ${a} == ${b}`;

export function actualCost(rule: string, self: unknown, limit = 1_000_000): number {
  const outcome = compileCel(rule, ['self', 'oldSelf']).evaluateWithCost({ self: toCel(self) }, limit);
  if (!outcome.ok) throw new Error(outcome.error);
  if (outcome.value !== true) throw new Error(`${rule} is ${String(outcome.value)}`);
  return outcome.cost;
}

const cases: Array<{ name: string; object: unknown; costs: Record<string, number> }> = [
  {
    name: 'integers',
    object: vals(2 ** 53, 2 ** 53, 2147483647, 2147483647, 2 ** 53, 2 ** 53),
    costs: {
      [equalsThemselvesAndLiteral('self.val1', 'self.val2', '9007199254740992')]: 11,
      'self.val1 == self.val6': 5,
      'type(self.val1) == int': 4,
      'self.val3 + 1 == 2147483647 + 1': 5,
    },
  },
  {
    name: 'unicode strings',
    object: vals('Rook takes 👑', 'Rook takes 👑'),
    costs: {
      [equalsThemselvesAndLiteral('self.val1', 'self.val2', "'Rook takes 👑'")]: 14,
      "self.val1.startsWith('Rook')": 4,
      "!self.val1.startsWith('knight')": 5,
      "self.val1.matches('^[^0-9]*$')": 8,
      "!self.val1.matches('^[0-9]*$')": 7,
      'type(self.val1) == string': 4,
      'size(self.val1) == 12': 4,
      "self.val1.charAt(3) == 'k'": 4,
      "self.val1.indexOf('o') == 1": 4,
      "self.val1.replace(' ', 'x') == 'Rookxtakesx👑'": 7,
      "self.val1.split(' ') == ['Rook', 'takes', '👑']": 6,
      "self.val1.substring(5) == 'takes 👑'": 5,
      "self.val1.substring(4, 10).trim() == 'takes'": 6,
      "self.val1.upperAscii() == 'ROOK TAKES 👑'": 6,
      'self.val1.lowerAscii() == self.val1.lowerAscii()': 10,
    },
  },
  { name: 'enums', object: { enumStr: 'Pending' }, costs: { "self.enumStr == 'Pending'": 3, "self.enumStr in ['Pending', 'Available']": 2 } },
  {
    name: 'lists',
    object: vals([1, 2, 3], [1, 2, 3]),
    costs: {
      [equalsThemselvesAndLiteral('self.val1', 'self.val2', '[1, 2, 3]')]: 11,
      '1 in self.val1': 5,
      'self.val2[0] in self.val1': 8,
      '!(0 in self.val1)': 6,
      'self.val1 + self.val2 == [1, 2, 3, 1, 2, 3]': 6,
      'self.val1 + [4, 5] == [1, 2, 3, 4, 5]': 4,
      'has(self.val1)': 1,
      'has(self.val1) && has(self.val2)': 2,
    },
  },
  {
    name: 'list access',
    object: { array: [1, 1, 2, 2, 3, 3, 4, 5] },
    costs: {
      '2 in self.array': 10,
      'self.array.all(e, e > 0)': 43,
      'self.array.exists(e, e > 2)': 36,
      'self.array.exists_one(e, e > 4)': 22,
      '!self.array.all(e, e < 2)': 21,
      '!self.array.exists(e, e < 0)': 52,
      '!self.array.exists_one(e, e == 2)': 25,
      'size(self.array.filter(e, e%2 == 0)) == 3': 68,
      'self.array.map(e, e * 20).filter(e, e > 50).exists(e, e == 60)': 194,
      'size(self.array) == 8': 4,
    },
  },
  {
    name: 'listMap access',
    object: {
      listMap: [
        { k: 'a1', v: 'b1' },
        { k: 'a2', v: 'b2' },
        { k: 'a3', v: 'b3', v2: 'z' },
      ],
    },
    costs: {
      'has(self.listMap[0].v)': 3,
      "self.listMap.all(m, m.k.startsWith('a'))": 21,
      "self.listMap.all(m, !has(m.v2) || m.v2 == 'z')": 21,
      "self.listMap.exists(m, m.k.endsWith('1'))": 13,
      "self.listMap.exists_one(m, m.k == 'a3')": 15,
      "!self.listMap.all(m, m.k.endsWith('1'))": 18,
      "!self.listMap.exists(m, m.v == 'x')": 25,
      "size(self.listMap.filter(m, m.k == 'a1')) == 1": 27,
      "self.listMap.exists(m, m.k == 'a1' && m.v == 'b1')": 16,
      "self.listMap.map(m, m.v).exists(v, v == 'b1')": 55,
      "self.listMap.exists(m, has(m.v2) && m.v2 == 'z')": 21,
      "!self.listMap.all(m, has(m.v2) && m.v2 != 'z')": 10,
      "self.listMap.filter(m, has(m.v2) && m.v2 == 'z').size() == 1": 24,
      "self.listMap.map(m, has(m.v2) && m.v2 == 'z', m.v2).size() == 1": 25,
      "self.listMap.filter(m, has(m.v2) && m.v2 == 'z').map(m, m.v2).size() == 1": 39,
    },
  },
  {
    name: 'quantity',
    object: vals('200M', '20Mi'),
    costs: {
      'isQuantity(self.val1)': 3,
      'isQuantity("200M")': 1,
      'quantity("50M").isLessThan(quantity("100M"))': 3,
      'quantity("200M").compareTo(quantity("0.2G")) == 0': 4,
      'quantity(self.val1).isInteger()': 4,
    },
  },
];

describe('actual cost of CEL evaluations, against Kubernetes 1.32', () => {
  for (const { name, object, costs } of cases) {
    describe(name, () => {
      for (const [rule, expected] of Object.entries(costs)) {
        it(rule, () => {
          expect(actualCost(rule, object)).toBe(expected);
        });
      }
    });
  }

  it('has the global form of matches, costed as the method', () => {
    expect(actualCost("matches(self.v, 'v1.[0-3].\\\\d+') == false", { v: 'v1.5.0' })).toBe(
      actualCost("self.v.matches('v1.[0-3].\\\\d+') == false", { v: 'v1.5.0' }),
    );
  });

  it('counts only the operands && and || evaluate, and stops at the per-call limit', () => {
    const rule = "self.group != 'gateway.networking.k8s.io' || self.names.all(a, self.names.all(b, a == b || a != b))";
    const names = Array.from({ length: 2000 }, (_, i) => `n${i}`);
    expect(actualCost(rule, { group: 'example.com', names })).toBe(4);
    const outcome = compileCel(rule, ['self']).evaluateWithCost({ self: { group: 'gateway.networking.k8s.io', names } }, 1_000_000);
    expect(outcome).toMatchObject({ ok: false, error: 'operation cancelled: actual cost limit exceeded', limitExceeded: true });
  });
});
