import { validationRuleWarnings } from './crd-validation-rules';

const crd = (...schemas: unknown[]) => ({
  apiVersion: 'apiextensions.svc.io/v1',
  kind: 'CustomResourceDefinition',
  spec: { versions: schemas.map((openAPIV3Schema, i) => ({ name: `v${i + 1}`, schema: { openAPIV3Schema } })) },
});

describe('validationRuleWarnings', () => {
  it('says nothing of a schema without rules', () => {
    expect(validationRuleWarnings(crd({ type: 'object', properties: { spec: { type: 'object' } } }))).toEqual([]);
    expect(validationRuleWarnings({ spec: 'not an object' })).toEqual([]);
  });

  it('names each place that carries rules, in either spelling, in every version', () => {
    const rules = [{ rule: 'self.a > 0' }];
    const warnings = validationRuleWarnings(
      crd(
        { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-validations': rules } } },
        { type: 'object', properties: { items: { type: 'array', items: { type: 'object', 'x-svc-validations': rules } } } },
      ),
    );
    expect(warnings).toEqual([
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations, spec.versions[1].schema.openAPIV3Schema.properties[items].items.x-svc-validations: validation rules are not evaluated by this server; custom resources are admitted without them',
    ]);
  });

  it('names three places and counts the rest', () => {
    const properties = Object.fromEntries(['a', 'b', 'c', 'd', 'e'].map((name) => [name, { type: 'object', 'x-kubernetes-validations': [{ rule: 'true' }] }]));
    const [warning] = validationRuleWarnings(crd({ type: 'object', properties }));
    expect(warning).toMatch(/properties\[c\]\.x-kubernetes-validations and 2 more: validation rules/);
  });

  it('walks a deeply nested schema without recursion', () => {
    let schema: Record<string, unknown> = { type: 'object', 'x-kubernetes-validations': [{ rule: 'true' }] };
    for (let i = 0; i < 10_000; i++) schema = { type: 'object', properties: { n: schema } };
    expect(validationRuleWarnings(crd(schema))).toEqual([]);
  });
});
