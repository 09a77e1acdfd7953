import type { JsonSchema } from '../schema/json-schema';
import { compileCel } from './cel-environment';
import { validationRuleErrors, ValidationRuleSet } from './validation-rules';

const schema: JsonSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      'x-svc-validations': [
        { rule: 'self.min <= self.max', message: 'min must not exceed max', fieldPath: '.min' },
        { rule: 'self.name.matches("^[a-z]+$")', messageExpression: '"name " + self.name + " is not lower case"' },
        { rule: 'self.replicas >= oldSelf.replicas', message: 'replicas may not shrink', reason: 'FieldValueForbidden' },
      ],
      properties: {
        min: { type: 'integer' },
        max: { type: 'integer' },
        replicas: { type: 'integer' },
        name: { type: 'string', maxLength: 63 },
        tags: {
          type: 'array',
          maxItems: 10,
          items: { type: 'string', maxLength: 20, 'x-svc-validations': [{ rule: 'self.size() > 1' }] },
          'x-svc-validations': [{ rule: 'self.isSorted()', message: 'tags must be sorted' }],
        },
      },
    },
  },
};

describe('x-svc-validations', () => {
  const rules = ValidationRuleSet.of(schema)!;

  it('evaluates rules with self, message, messageExpression and fieldPath', () => {
    expect(rules.validate({ spec: { min: 1, max: 2, name: 'abc', replicas: 1 } })).toEqual([]);
    const errors = rules.validate({ spec: { min: 3, max: 2, name: 'Abc', replicas: 1, tags: ['bb', 'aa', 'x'] } });
    expect(errors).toEqual([
      { type: 'FieldValueInvalid', field: 'spec.min', badValue: 'object', detail: 'min must not exceed max' },
      { type: 'FieldValueInvalid', field: 'spec', badValue: 'object', detail: 'name Abc is not lower case' },
      { type: 'FieldValueInvalid', field: 'spec.tags', badValue: 'array', detail: 'tags must be sorted' },
      { type: 'FieldValueInvalid', field: 'spec.tags[2]', badValue: 'string', detail: 'failed rule: self.size() > 1' },
    ]);
  });

  it('reports a rule of the root at Kubernetes’ nil path, and at its fieldPath when it has one', () => {
    const root = ValidationRuleSet.of({
      type: 'object',
      'x-svc-validations': [
        { rule: "self.spec.name != 'root'", message: 'not root' },
        { rule: "self.spec.name != 'pathed'", message: 'not pathed', fieldPath: '.spec.name' },
      ],
      properties: { spec: { type: 'object', properties: { name: { type: 'string', maxLength: 10 } } } },
    })!;
    expect(root.validate({ spec: { name: 'root' } })).toEqual([{ type: 'FieldValueInvalid', field: '<nil>', badValue: 'object', detail: 'not root' }]);
    expect(root.validate({ spec: { name: 'pathed' } })).toEqual([{ type: 'FieldValueInvalid', field: 'spec.name', badValue: 'object', detail: 'not pathed' }]);
  });

  it('runs transition rules only on updates where the old value exists', () => {
    expect(rules.validate({ spec: { min: 1, max: 2, name: 'a', replicas: 0 } })).toEqual([]);
    expect(rules.validateTransition({ spec: { min: 1, max: 2, name: 'a', replicas: 1 } }, { spec: { replicas: 2 } })).toEqual([
      { type: 'FieldValueForbidden', field: 'spec', detail: 'replicas may not shrink' },
    ]);
    expect(rules.validateTransition({ spec: { min: 1, max: 2, name: 'a', replicas: 3 } }, { spec: { replicas: 2 } })).toEqual([]);
    expect(rules.validateTransition({ spec: { replicas: 1 } }, { metadata: {} })).toEqual([]);
  });

  it('reports an evaluation error at the rule', () => {
    const errors = rules.validate({ spec: { max: 2, name: 'a' } });
    expect(errors[0]).toMatchObject({ field: 'spec', detail: expect.stringContaining('evaluating rule: self.min <= self.max') });
  });

  it('refuses rules that do not compile, unknown variables and bad reasons', () => {
    const bad: JsonSchema = {
      type: 'object',
      'x-svc-validations': [{ rule: 'self.a ==' }, { rule: 'other > 1' }, { rule: 'true', reason: 'Nope' }],
    };
    const errors = validationRuleErrors(bad, 'root');
    expect(errors.map((e) => `${e.field} ${e.type}`)).toEqual([
      'root.x-svc-validations[0].rule FieldValueInvalid',
      'root.x-svc-validations[1].rule FieldValueInvalid',
      'root.x-svc-validations[2].reason FieldValueNotSupported',
    ]);
    expect(errors[1].detail).toContain("undeclared reference to 'other'");
  });

  it('refuses oldSelf where no stored value correlates (items of a list that is not a map)', () => {
    const errors = validationRuleErrors(
      {
        type: 'object',
        properties: { xs: { type: 'array', maxItems: 5, items: { type: 'string', maxLength: 5, 'x-svc-validations': [{ rule: 'self == oldSelf' }] } } },
      },
      'root',
    );
    expect(errors[0]).toMatchObject({ field: 'root.properties[xs].items.x-svc-validations[0].rule' });
  });

  it('estimates costs from the bounds of the schema and refuses a rule over budget', () => {
    expect(validationRuleErrors(schema, 'root')).toEqual([]);
    const unbounded: JsonSchema = {
      type: 'object',
      properties: {
        xs: { type: 'array', items: { type: 'string' }, 'x-svc-validations': [{ rule: 'self.all(x, self.all(y, x != y || x == y))' }] },
      },
    };
    const errors = validationRuleErrors(unbounded, 'root');
    expect(errors[0]).toMatchObject({ type: 'FieldValueForbidden', field: 'root.properties[xs].x-svc-validations[0].rule' });
    expect(errors[0].detail).toMatch(/^estimated rule cost exceeds budget by factor of more than 100x \(try simplifying the rule, or adding maxItems/);
    const bounded = { ...unbounded.properties!.xs, maxItems: 10, items: { type: 'string', maxLength: 10 } } as JsonSchema;
    expect(validationRuleErrors({ type: 'object', properties: { xs: bounded } }, 'root')).toEqual([]);
  });

  it('refuses rules whose cost times the number of values they run on is over the budget of the whole schema', () => {
    const items = (maxItems?: number): JsonSchema => ({
      type: 'array',
      ...(maxItems === undefined ? {} : { maxItems }),
      items: {
        type: 'object',
        properties: { name: { type: 'string', maxLength: 1000 } },
        'x-svc-validations': [{ rule: "self.name.matches('^[a-z]+$')" }],
      },
    });
    const errors = validationRuleErrors({ type: 'object', properties: { xs: items() } }, 'root');
    // 804 per evaluation (a maxLength of 1000 is 4000 bytes: 401 × 2 + 2) times 1,048,576 objects in 3 MiB.
    expect(errors.map((e) => [e.field, e.type, e.detail.split(' (')[0]])).toEqual([
      ['root.properties[xs].items.x-svc-validations[0].rule', 'FieldValueForbidden', 'estimated rule cost exceeds budget by factor of 84.3x'],
      [
        'root.properties[xs].items.x-svc-validations[0].rule',
        'FieldValueForbidden',
        'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema',
      ],
      ['root', 'FieldValueForbidden', 'x-svc-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 8.4x'],
    ]);
    expect(validationRuleErrors({ type: 'object', properties: { xs: items(1000) } }, 'root')).toEqual([]);
  });

  it('stops an evaluation at the per-call limit by its actual cost, and no further rules run', () => {
    const quadratic = 'self.all(x, self.all(y, x != y || x == y))';
    const set = ValidationRuleSet.of({
      type: 'object',
      properties: { xs: { type: 'array', items: { type: 'string' }, 'x-svc-validations': [{ rule: quadratic }] } },
    })!;
    expect(set.validate({ xs: ['a', 'b'] })).toEqual([]);
    expect(set.validate({ xs: Array.from({ length: 2000 }, (_, i) => `v${i}`) })[0]).toMatchObject({
      field: 'xs',
      detail: `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${quadratic}`,
    });
  });

  it('offers the Kubernetes list and regex libraries and the strings extension', () => {
    const run = (source: string, self: unknown) => compileCel(source, ['self']).evaluate({ self });
    expect(run('self.sum() == 6 && self.max() == 3 && self.min() == 1 && self.indexOf(2) == 1', [1n, 2n, 3n])).toEqual({ ok: true, value: true });
    expect(run('self.find("[0-9]+") == "42" && self.findAll("[a-z]").size() == 3', 'abc42')).toEqual({ ok: true, value: true });
    expect(run('self.lowerAscii().split(",").size() == 2', 'A,B')).toEqual({ ok: true, value: true });
    expect(() => compileCel('x'.repeat(20_000), ['self'])).toThrow(/longer than/);
    expect(() => compileCel('('.repeat(300) + '1' + ')'.repeat(300), ['self'])).toThrow(/nests deeper than 250 levels/);
    // A long chain parses or is refused as too deep, never with the engine's own stack overflow.
    for (const source of ['self' + '.a'.repeat(4000), '1' + ' + 1'.repeat(2400)]) {
      try {
        compileCel(source, ['self']);
      } catch (error) {
        expect((error as Error).message).toMatch(/^compilation failed: expression nests too deeply$/);
      }
    }
    expect(compileCel('"((((" + self', ['self']).evaluate({ self: 'x' })).toEqual({ ok: true, value: '((((x' });
  });
});
