import { LabelQuery } from './label-query';
import { LabelRequirement } from './label-requirement';
import { isBadRequest } from './status-predicates';
import { StatusError } from './status';

function parseError(selector: string): StatusError {
  try {
    LabelQuery.parse(selector);
  } catch (err) {
    expect(err).toBeInstanceOf(StatusError);
    expect(isBadRequest(err)).toBe(true);
    return err as StatusError;
  }
  throw new Error(`expected ${JSON.stringify(selector)} to be rejected`);
}

const QUALIFIED_NAME_RULE =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_RULE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('LabelQuery.parse', () => {
  it.each([
    ['', ''],
    ['   ', ''],
    ['x=a', 'x=a'],
    ['x==a', 'x==a'],
    ['x=a,y=b', 'x=a,y=b'],
    ['y=b,x=a', 'x=a,y=b'],
    [' x = a , y = b , z = c ', 'x=a,y=b,z=c'],
    ['x\t=\ta\n,\r\ny=b', 'x=a,y=b'],
    ['x!=a', 'x!=a'],
    ['x=', 'x='],
    ['x= ', 'x='],
    ['x=,z= ', 'x=,z='],
    ['x= ,z= ', 'x=,z='],
    ['!x', '!x'],
    ['!x, y', '!x,y'],
    ['x', 'x'],
    ['x in (a)', 'x in (a)'],
    ['x in (a,b)', 'x in (a,b)'],
    ['x in (b,a)', 'x in (a,b)'],
    ['x in (a,a,b)', 'x in (a,b)'],
    ['x notin (a)', 'x notin (a)'],
    ['x notin (b, a)', 'x notin (a,b)'],
    ['x in ()', 'x in ()'],
    ['x in (,a)', 'x in (,a)'],
    ['x in (a,)', 'x in (,a)'],
    ['x in (a,,b)', 'x in (,a,b)'],
    ['x in (in,notin)', 'x in (in,notin)'],
    ['in=notin', 'in=notin'],
    ['x>1', 'x>1'],
    ['x<1', 'x<1'],
    ['x>1,z<5', 'x>1,z<5'],
    ['x=a,!y,z in (c)', 'x=a,!y,z in (c)'],
    ['example.com/app=web', 'example.com/app=web'],
    ['a.b-c_d=A.b-C_1', 'a.b-c_d=A.b-C_1'],
  ])('parses %j and prints %j', (input, printed) => {
    expect(LabelQuery.parse(input).toString()).toBe(printed);
  });

  it('sorts requirements by key and keeps their operators', () => {
    const q = LabelQuery.parse('z in (b,a), !y, x');
    expect(q.requirements.map((r) => [r.key, r.operator, r.values])).toEqual([
      ['x', 'exists', []],
      ['y', '!', []],
      ['z', 'in', ['a', 'b']],
    ]);
  });

  it('treats the empty string as everything', () => {
    const q = LabelQuery.parse('');
    expect(q.isEmpty()).toBe(true);
    expect(q.matches({ any: 'thing' })).toBe(true);
    expect(q.matches(undefined)).toBe(true);
  });

  it.each([
    ['x=a||y=b', `unable to parse requirement: values[0][x]: Invalid value: "a||y": ${LABEL_VALUE_RULE}`],
    ['x==a==b', "found '==', expected: ',' or 'end of string'"],
    ['!x=a', "found '=', expected: ',' or 'end of string'"],
    ['x<a', `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`],
    ['x>1.5', `unable to parse requirement: values[0]: Invalid value: "1.5": for 'Gt', 'Lt' operators, the value must be an integer`],
    ['x in a', "unable to parse requirement: found 'a' expected: '('"],
    ['x in (a', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['x in (a b)', "unable to parse requirement: found 'b', expected: ',' or ')'"],
    ['x in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['x in (a,=)', "unable to parse requirement: found '=', expected: ',', or identifier"],
    [',', "found ',', expected: !, identifier, or 'end of string'"],
    ['=a', "found '=', expected: !, identifier, or 'end of string'"],
    ['(', "found '(', expected: !, identifier, or 'end of string'"],
    ['x,', "found '', expected: identifier after ','"],
    ['x,,y', "found ',', expected: identifier after ','"],
    ['x y', "unable to parse requirement: found 'y', expected: in, notin, =, ==, !=, gt, lt"],
    ['x!y', "unable to parse requirement: found '!', expected: in, notin, =, ==, !=, gt, lt"],
    ['x=(a)', "unable to parse requirement: found '(', expected: identifier"],
    ['!!x', "unable to parse requirement: found '!', expected: identifier"],
    ['-x', `unable to parse requirement: <nil>: Invalid value: "-x": ${QUALIFIED_NAME_RULE}`],
    ['x=-a', `unable to parse requirement: values[0][x]: Invalid value: "-a": ${LABEL_VALUE_RULE}`],
    ['x=' + 'a'.repeat(64), `unable to parse requirement: values[0][x]: Invalid value: "${'a'.repeat(64)}": must be no more than 63 characters`],
    [
      'a/b/c=d',
      `unable to parse requirement: <nil>: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ],
  ])('rejects %j: %s', (input, message) => {
    const err = parseError(input);
    expect(err.message).toBe(message);
    expect(err.status).toMatchObject({ kind: 'Status', code: 400, reason: 'BadRequest', message });
  });
});

describe('LabelQuery matching', () => {
  const cases: Array<[string, Record<string, string> | undefined, boolean]> = [
    ['x=y', { x: 'y' }, true],
    ['x=y', { x: 'z' }, false],
    ['x=y', {}, false],
    ['x==y', { x: 'y' }, true],
    ['x=', { x: '' }, true],
    ['x=', {}, false],
    ['x!=y', { x: 'z' }, true],
    ['x!=y', {}, true],
    ['x!=y', { x: 'y' }, false],
    ['x in (a,b)', { x: 'a' }, true],
    ['x in (a,b)', { x: 'b' }, true],
    ['x in (a,b)', { x: 'c' }, false],
    ['x in (a,b)', {}, false],
    ['x in (,a)', { x: '' }, true],
    ['x notin (a,b)', { x: 'c' }, true],
    ['x notin (a,b)', {}, true],
    ['x notin (a,b)', { x: 'a' }, false],
    ['x', { x: '' }, true],
    ['x', { y: 'x' }, false],
    ['!x', { y: 'x' }, true],
    ['!x', { x: 'a' }, false],
    ['x>1', { x: '2' }, true],
    ['x>1', { x: '1' }, false],
    ['x>1', { x: 'a' }, false],
    ['x>1', {}, false],
    ['x<1', { x: '0' }, true],
    ['x<1', { x: '-5' }, true],
    ['x<1', { x: '1' }, false],
    ['x>9223372036854775806', { x: '9223372036854775807' }, true],
    ['x>1', { x: '9223372036854775808' }, false],
    ['x=a,y=b', { x: 'a', y: 'b', z: 'c' }, true],
    ['x=a,y=b', { x: 'a' }, false],
    ['x=a,!z', { x: 'a', z: '' }, false],
    ['x', undefined, false],
    ['!x', undefined, true],
    ['constructor', {}, false],
    ['toString', {}, false],
    ['!hasOwnProperty', {}, true],
  ];
  it.each(cases)('%j against %j is %s', (selector, labels, expected) => {
    expect(LabelQuery.parse(selector).matches(labels)).toBe(expected);
  });
});

describe('LabelQuery constructors', () => {
  it('everything matches all, nothing matches none, both print empty', () => {
    expect(LabelQuery.everything().matches({})).toBe(true);
    expect(LabelQuery.everything().isEmpty()).toBe(true);
    expect(LabelQuery.nothing().matches({})).toBe(false);
    expect(LabelQuery.nothing().matches({ a: 'b' })).toBe(false);
    expect(LabelQuery.nothing().isEmpty()).toBe(false);
    expect(LabelQuery.nothing().matchesNothing()).toBe(true);
    expect(LabelQuery.everything().toString()).toBe('');
    expect(LabelQuery.nothing().toString()).toBe('');
    expect(LabelQuery.nothing().add(LabelRequirement.create('a', 'exists')).matches({ a: '' })).toBe(false);
  });

  it('fromSet pins every label, sorted by key', () => {
    const q = LabelQuery.fromSet({ tier: 'web', app: 'shop' });
    expect(q.toString()).toBe('app=shop,tier=web');
    expect(q.matches({ app: 'shop', tier: 'web', extra: 'x' })).toBe(true);
    expect(q.matches({ app: 'shop' })).toBe(false);
    expect(LabelQuery.fromSet({}).isEmpty()).toBe(true);
    expect(() => LabelQuery.fromSet({ 'bad key': 'x' })).toThrow(/key: Invalid value: "bad key"/);
  });

  it('add keeps the order by key and does not change the original', () => {
    const base = LabelQuery.parse('b=1');
    const more = base.add(LabelRequirement.create('a', 'in', ['x', 'y']), LabelRequirement.create('c', '!'));
    expect(more.toString()).toBe('a in (x,y),b=1,!c');
    expect(base.toString()).toBe('b=1');
  });

  it('requiresExactMatch reports a pinned value', () => {
    const q = LabelQuery.parse('a=1,b in (2),c in (3,4),d!=5');
    expect(q.requiresExactMatch('a')).toBe('1');
    expect(q.requiresExactMatch('b')).toBe('2');
    expect(q.requiresExactMatch('c')).toBeUndefined();
    expect(q.requiresExactMatch('d')).toBeUndefined();
    expect(q.requiresExactMatch('e')).toBeUndefined();
  });
});

describe('LabelRequirement.create', () => {
  it.each([
    ['in', [], `values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty`],
    ['=', ['a', 'b'], `values: Invalid value: []string{"a", "b"}: exact-match compatibility requires one single value`],
    ['exists', ['a'], `values: Invalid value: []string{"a"}: values set must be empty for exists and does not exist`],
    ['gt', ['1', '2'], `values: Invalid value: []string{"1", "2"}: for 'Gt', 'Lt' operators, exactly one value is required`],
  ] as const)('%s with %j is rejected', (op, values, message) => {
    expect(() => LabelRequirement.create('k', op, values)).toThrow(message);
  });

  it('lists every problem at once', () => {
    expect(() => LabelRequirement.create('-k', 'in', ['-v'])).toThrow(
      `[key: Invalid value: "-k": ${QUALIFIED_NAME_RULE}, values[0][-k]: Invalid value: "-v": ${LABEL_VALUE_RULE}]`,
    );
  });

  it('rejects an unknown operator', () => {
    expect(() => LabelRequirement.create('k', 'like' as never, ['a'])).toThrow(
      'operator: Unsupported value: "like": supported values: "in", "notin", "=", "==", "!=", "gt", "lt", "exists", "!"',
    );
  });
});

describe('LabelQuery.fromLabelSelector', () => {
  it('a missing selector selects nothing, an empty one everything', () => {
    expect(LabelQuery.fromLabelSelector(undefined).matchesNothing()).toBe(true);
    expect(LabelQuery.fromLabelSelector(null).matches({})).toBe(false);
    expect(LabelQuery.fromLabelSelector({}).isEmpty()).toBe(true);
    expect(LabelQuery.fromLabelSelector({ matchLabels: {}, matchExpressions: [] }).matches({ a: 'b' })).toBe(true);
  });

  it('combines labels and expressions', () => {
    const q = LabelQuery.fromLabelSelector({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['front', 'back'] },
        { key: 'env', operator: 'NotIn', values: ['prod'] },
        { key: 'owner', operator: 'Exists' },
        { key: 'legacy', operator: 'DoesNotExist' },
      ],
    });
    expect(q.toString()).toBe('app=web,env notin (prod),!legacy,owner,tier in (back,front)');
    expect(q.matches({ app: 'web', tier: 'front', owner: 'me' })).toBe(true);
    expect(q.matches({ app: 'web', tier: 'front', owner: 'me', env: 'prod' })).toBe(false);
    expect(q.matches({ app: 'web', tier: 'front', owner: 'me', legacy: 'y' })).toBe(false);
    expect(q.matches({ app: 'web', tier: 'side', owner: 'me' })).toBe(false);
    expect(q.matches({ app: 'web', tier: 'front' })).toBe(false);
  });

  it.each([
    [
      { matchExpressions: [{ key: 'a', operator: 'In' as const, values: [] }] },
      "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty",
    ],
    [
      { matchExpressions: [{ key: 'a', operator: 'NotIn' as const }] },
      "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty",
    ],
    [
      { matchExpressions: [{ key: 'a', operator: 'Exists' as const, values: ['x'] }] },
      'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist',
    ],
    [
      { matchExpressions: [{ key: 'a', operator: 'DoesNotExist' as const, values: ['x'] }] },
      'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist',
    ],
    [{ matchExpressions: [{ key: 'a', operator: 'Foo' as never }] }, '"Foo" is not a valid label selector operator'],
    [{ matchLabels: { 'a b': 'c' } }, `key: Invalid value: "a b": ${QUALIFIED_NAME_RULE}`],
    [{ matchLabels: { a: 'b c' } }, `values[0][a]: Invalid value: "b c": ${LABEL_VALUE_RULE}`],
  ])('rejects %j', (selector, message) => {
    let caught: unknown;
    try {
      LabelQuery.fromLabelSelector(selector);
    } catch (err) {
      caught = err;
    }
    expect(isBadRequest(caught)).toBe(true);
    expect((caught as Error).message).toBe(message);
  });
});
