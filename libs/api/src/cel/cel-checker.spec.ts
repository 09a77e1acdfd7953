import type { JsonSchema } from '../schema/json-schema';
import { matchConditionErrors, policyExpressionErrors, WEBHOOK_CONDITION_ENVIRONMENT } from './cel-admission-environment';
import { authorizerBindings, PendingAuthorization, type AuthorizationAnswer, type AuthorizationCheck } from './cel-authorizer-library';
import { T } from './cel-checker-types';
import { ruleDeclarations, schemaDeclType } from './cel-decl-type';
import { compileCel } from './cel-environment';
import { checkValidationRules, ValidationRuleSet } from './validation-rules';

// The checker against cel-go's: which expressions Kubernetes 1.32 refuses when a CRD or a policy is
// written, with cel-go's messages, places and carets.

const spec: JsonSchema = {
  type: 'object',
  properties: {
    replicas: { type: 'integer' },
    name: { type: 'string', maxLength: 63 },
    ratio: { type: 'number' },
    enabled: { type: 'boolean' },
    items: { type: 'array', items: { type: 'integer' } },
    tags: { type: 'object', additionalProperties: { type: 'string' } },
    port: { 'x-svc-int-or-string': true },
    started: { type: 'string', format: 'date-time' },
    timeout: { type: 'string', format: 'duration' },
    ports: {
      type: 'array',
      'x-svc-list-type': 'map',
      'x-svc-list-map-keys': ['name'],
      items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } },
    },
    namespace: { type: 'string' },
    extra: { type: 'object', 'x-svc-preserve-unknown-fields': true },
    template: { type: 'object', 'x-svc-embedded-resource': true, 'x-svc-preserve-unknown-fields': true },
  },
};

const declarations = () => ruleDeclarations(schemaDeclType(spec, false)!, false, 'selfType1');
const compile = (rule: string) => compileCel(rule, declarations());

describe("CEL's type checker, as Kubernetes 1.32 runs it", () => {
  it.each([
    'self.replicas > 1 && self.name.startsWith("a")',
    'self.items.all(i, i > 0)',
    "self.tags.all(k, self.tags[k] != '')",
    'self.items.map(x, x * 2).sum() > 3',
    "type(self.port) == int ? self.port < 5 : double(self.port.replace('%', '')) < 0.5",
    "self.started < timestamp('2030-01-01T00:00:00Z')",
    "self.timeout <= duration('1h')",
    "self.ports.exists(p, p.name == 'http' && p.port == 80)",
    // Kubernetes 1.32 finds a property named by a keyword under both names.
    "self.namespace == 'a' && self.__namespace__ == 'a'",
    // An embedded resource always shows kind, apiVersion and metadata.name.
    "self.template.kind == 'Pod' && self.template.metadata.name != ''",
    "self.?name.orValue('') == ''",
    'self.ratio > 1',
    'self.replicas < 1.5',
    'sign(quantity("1")) == 1',
    "url('http://x').getHost() == 'x' && ip('1.2.3.4').family() == 4 && cidr('10.0.0.0/8').containsIP('10.1.1.1')",
    'format.dns1123Label().validate(self.name).hasValue()',
    "[1, 2].exists(x, x == 2) && [[], [1]].size() == 2 && {'a': 1, 'b': 2}.size() == 2",
    "self.items.isSorted() && self.items.indexOf(1) >= 0 && 'abc'.indexOf('b') == 1",
    "self.name.matches('^[a-z]+$') && self.name.find('[a-z]+') != ''",
    "sets.contains([1, 2], [1]) && '%s'.format(['x']) == 'x'",
    'optional.of(1).value() == 1 && optional.none().orValue(2) == 2',
  ])('accepts %s', (rule) => {
    expect(compile(rule).outputType).toEqual(T.bool);
  });

  it.each([
    [
      'self.replicas + "x"',
      "ERROR: <input>:1:15: found no matching overload for '_+_' applied to '(int, string)'\n | self.replicas + \"x\"\n | ..............^",
    ],
    ['self.name.size() > "a"', "ERROR: <input>:1:18: found no matching overload for '_>_' applied to '(int, string)'"],
    ['self.foo == 1', "ERROR: <input>:1:5: undefined field 'foo'\n | self.foo == 1\n | ....^"],
    ['has(self.nope)', "ERROR: <input>:1:4: undefined field 'nope'"],
    ['self.items.all(i, i)', "ERROR: <input>:1:19: expected type 'bool' but found 'int'"],
    ['self.items.exists_one(i, i)', "ERROR: <input>:1:22: found no matching overload for '_?_:_' applied to '(int, int, int)'"],
    ['[1, "a"].size() > 0', "ERROR: <input>:1:5: expected type 'int' but found 'string'"],
    // HomogeneousAggregateLiterals: dyn does not mix either.
    ['[1, dyn(2)].size() > 0', "ERROR: <input>:1:8: expected type 'int' but found 'dyn'"],
    ["{'a': 1, 'b': 'x'}.size() > 0", "ERROR: <input>:1:15: expected type 'int' but found 'string'"],
    ['size(self.replicas) > 0', "ERROR: <input>:1:5: found no matching overload for 'size' applied to '(int)'"],
    ['quantity("1").sign() == 1', "found no matching overload for 'sign' applied to 'kubernetes.Quantity.()'"],
    ['self.tags.exists(k, k == 1)', "ERROR: <input>:1:23: found no matching overload for '_==_' applied to '(string, int)'"],
    ['self.nope.all(x, x)', "undefined field 'nope'"],
    ['nope > 1', "ERROR: <input>:1:1: undeclared reference to 'nope' (in container '')"],
    ['self.name.nope()', "undeclared reference to 'nope' (in container '')"],
    ['self.replicas.foo == 1', "type 'int' does not support field selection"],
    ['self.replicas.all(x, x)', "expression of type 'int' cannot be range of a comprehension (must be list, map, or dynamic)"],
    ['self.extra.anything == 1', "undefined field 'anything'"],
    ["self.started > '2020'", "found no matching overload for '_>_' applied to '(timestamp, string)'"],
    // Kubernetes' literal validators.
    ['duration("1x") > duration("1s")', 'ERROR: <input>:1:10: invalid duration argument'],
    ["timestamp('x') > timestamp('2020-01-01T00:00:00Z')", 'ERROR: <input>:1:11: invalid timestamp argument'],
    ['self.name.matches("[")', 'ERROR: <input>:1:19: invalid matches argument'],
    ["'%s %d'.format(['a', 1]) == ''", "expected type 'string' but found 'int'"],
    ['self.all(k, v, true)', "undeclared reference to 'all' (in container '')"],
  ])('refuses %s', (rule, message) => {
    expect(() => compile(rule)).toThrow(message.startsWith('ERROR') ? `compilation failed: ${message}` : message);
  });

  it('reports every error in source order, each with its line', () => {
    expect(() => compileCel('a ? 1 : "x"', [])).toThrow(
      "compilation failed: ERROR: <input>:1:1: undeclared reference to 'a' (in container '')\n | a ? 1 : \"x\"\n | ^\n" +
        "ERROR: <input>:1:3: found no matching overload for '_?_:_' applied to '(!error!, int, string)'\n | a ? 1 : \"x\"\n | ..^",
    );
    expect(() => compileCel('true &&\n  1', [])).toThrow("ERROR: <input>:2:3: expected type 'bool' but found 'int'\n |   1\n | ..^");
  });

  it('places errors after optional syntax as in the source as written', () => {
    expect(() => compile("self.?name.orValue('') + 1 == ''")).toThrow("ERROR: <input>:1:24: found no matching overload for '_+_' applied to '(string, int)'");
  });

  it('types optionalOldSelf as an optional', () => {
    const decl = schemaDeclType({ type: 'integer' }, false)!;
    expect(() => compileCel('self >= oldSelf', ruleDeclarations(decl, true))).toThrow(
      "found no matching overload for '_>=_' applied to '(int, optional_type(int))'",
    );
    expect(compileCel('self >= oldSelf.orValue(1)', ruleDeclarations(decl, true)).outputType).toEqual(T.bool);
    expect(() => compileCel("self >= oldSelf.orValue('')", ruleDeclarations(decl, true))).toThrow("found no matching overload for 'orValue'");
  });
});

describe('CRD rules at write time', () => {
  const errorsOf = (schema: Record<string, unknown>) => checkValidationRules(schema, 'spec.validation.openAPIV3Schema').errors;

  it("refuses an ill-typed rule with Kubernetes' message, the rule printed as Go prints it", () => {
    const [error] = errorsOf({ type: 'object', properties: { replicas: { type: 'integer' } }, 'x-svc-validations': [{ rule: 'self.replicas + "x"' }] });
    expect(error.field).toBe('spec.validation.openAPIV3Schema.x-svc-validations[0].rule');
    expect(JSON.stringify(error.badValue)).toBe(
      JSON.stringify(
        'apiextensions.ValidationRule{Rule:"self.replicas + \\"x\\"", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}',
      ),
    );
    expect(error.detail).toMatch(/^compilation failed: ERROR: <input>:1:15: found no matching overload for '_\+_' applied to '\(int, string\)'/);
  });

  it.each([
    [{ type: 'integer', 'x-svc-validations': [{ rule: '42' }] }, 'cel expression must evaluate to a bool'],
    [{ type: 'integer', 'x-svc-validations': [{ rule: 'self == 5', messageExpression: '42' }] }, 'messageExpression must evaluate to a string'],
    [{ type: 'integer', 'x-svc-validations': [{ rule: 'self < 32.0', messageExpression: '"x" + 1' }] }, 'messageExpression compilation failed'],
    [{ type: 'integer', 'x-svc-validations': [{ rule: "fakeFunction('abc') == 'ABC'" }] }, "undeclared reference to 'fakeFunction'"],
    [{ type: 'number', 'x-svc-validations': [{ rule: 'size(self) == 10' }] }, 'compilation failed'],
    [{ type: 'integer', 'x-svc-validations': [{ rule: 'self > 0', optionalOldSelf: true }] }, 'may not be set if oldSelf is not used in rule'],
    [{ type: 'object', properties: { self: { type: 'integer' } }, 'x-svc-validations': [{ rule: 'self == 10' }] }, 'found no matching overload'],
  ])('refuses %j: %s', (schema, message) => {
    expect(errorsOf(schema).map((e) => e.detail)).toEqual([expect.stringContaining(message)]);
  });

  it.each([
    {
      type: 'object',
      properties: { if: { type: 'integer' }, self: { type: 'integer' } },
      'x-svc-validations': [{ rule: 'self.if == 10 && self.__if__ == 10 && self.self == 10' }],
    },
    { type: 'array', items: { type: 'array', items: { type: 'string' } }, 'x-svc-validations': [{ rule: 'size(self[0][0]) == 10' }] },
    { type: 'object', additionalProperties: { type: 'boolean' }, 'x-svc-validations': [{ rule: 'size(self) > 0 && self.all(k, self[k])' }] },
    { type: 'integer', 'x-svc-validations': [{ rule: 'self >= oldSelf.value()', optionalOldSelf: true }] },
    { type: 'integer', 'x-svc-validations': [{ rule: 'oldSelf.hasValue() ? self >= oldSelf.value() : true', optionalOldSelf: true }] },
  ])('accepts %j', (schema) => {
    expect(errorsOf(schema)).toEqual([]);
  });
});

describe('ValidatingAdmissionPolicy expressions at write time', () => {
  const policy = (extra: Record<string, unknown>) => ({ matchConstraints: { resourceRules: [] }, ...extra });
  const details = (extra: Record<string, unknown>) =>
    policyExpressionErrors(policy(extra) as Parameters<typeof policyExpressionErrors>[0]).map((e) => `${e.field}: ${e.detail}`);

  it.each([
    ["object.spec.replicas > 1 && request.userInfo.username.startsWith('system:')", {}],
    ["namespaceObject.metadata.labels['env'] == 'prod' && request.operation == 'CREATE'", {}],
    ["authorizer.group('apps').resource('deployments').namespace('x').name('y').check('update').allowed()", {}],
    ["authorizer.requestResource.check('update').allowed() || authorizer.path('/healthz').check('get').reason() == ''", {}],
    ["authorizer.serviceAccount('ns', 'sa').group('').resource('pods').check('get').errored() == false", {}],
    ['params.max > object.spec.replicas', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } }],
    [
      'variables.replicas > 1 && variables.names.all(n, n != "")',
      {
        variables: [
          { name: 'replicas', expression: 'object.spec.replicas' },
          { name: 'names', expression: "['a', 'b']" },
        ],
      },
    ],
  ])('accepts %s', (expression, extra) => {
    expect(details({ ...extra, validations: [{ expression }] })).toEqual([]);
  });

  it.each([
    ['params.max > 1', {}, "spec.validations[0].expression: compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')"],
    ['object.spec.enabled', {}, 'spec.validations[0].expression: must evaluate to bool but got dyn'],
    ['request.nope == 1', {}, "undefined field 'nope'"],
    ['request.operation == 1', {}, "found no matching overload for '_==_' applied to '(string, int)'"],
    ['variables.x > 1', {}, "undeclared reference to 'variables'"],
    [
      'variables.names.exists(n, n == 1)',
      { variables: [{ name: 'names', expression: "['a']" }] },
      "found no matching overload for '_==_' applied to '(string, int)'",
    ],
    ['variables.nope', { variables: [{ name: 'names', expression: "['a']" }] }, "undefined field 'nope'"],
  ])('refuses %s', (expression, extra, message) => {
    expect(details({ ...extra, validations: [{ expression }] })).toEqual([expect.stringContaining(message)]);
  });

  it('compiles messageExpressions without the authorizer, variables in order, matchConditions and audit annotations', () => {
    expect(details({ validations: [{ expression: 'true', messageExpression: "authorizer.path('/').check('get').reason()" }] })).toEqual([
      expect.stringContaining("spec.validations[0].messageExpression: compilation failed: ERROR: <input>:1:1: undeclared reference to 'authorizer'"),
    ]);
    expect(details({ validations: [{ expression: 'true', messageExpression: '1' }] })).toEqual([
      'spec.validations[0].messageExpression: must evaluate to string but got int',
    ]);
    expect(
      details({
        variables: [
          { name: 'a', expression: 'variables.b' },
          { name: 'b', expression: '1' },
        ],
        validations: [{ expression: 'true' }],
      }),
    ).toEqual([expect.stringContaining("spec.variables[0].expression: compilation failed: ERROR: <input>:1:10: undefined field 'b'")]);
    expect(
      details({
        matchConditions: [{ name: 'm', expression: '  variables.x' }],
        variables: [{ name: 'x', expression: 'true' }],
        validations: [{ expression: 'true' }],
      }),
    ).toEqual([expect.stringContaining("spec.matchConditions[0].expression: compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables'")]);
    expect(details({ auditAnnotations: [{ key: 'k', valueExpression: '1' }] })).toEqual([
      'spec.auditAnnotations[0].valueExpression: must evaluate to one of [string null_type] but got int',
    ]);
  });
});

describe("webhooks' matchConditions at write time", () => {
  it('declares the authorizer but neither params nor variables', () => {
    const errors = matchConditionErrors(
      [
        { name: 'a', expression: "authorizer.requestResource.check('create').allowed() && request.userInfo.groups.exists(g, g == 'dev')" },
        { name: 'b', expression: 'params.x == 1' },
        { name: 'c', expression: 'object.metadata.name' },
      ],
      'webhooks[0].matchConditions',
      WEBHOOK_CONDITION_ENVIRONMENT,
    );
    expect(errors.map((e) => `${e.field}: ${e.detail.split('\n')[0]}`)).toEqual([
      "webhooks[0].matchConditions[1].expression: compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')",
      'webhooks[0].matchConditions[2].expression: must evaluate to bool but got dyn',
    ]);
  });
});

describe('the authorizer library at run time', () => {
  const user = { username: 'alice', groups: ['dev'] };
  const request = { group: 'apps', resource: 'deployments', subresource: '', namespace: 'ns', name: 'web' };
  const env = () => ({
    variables: new Map([
      ['authorizer', T.struct('kubernetes.authorization.Authorizer')],
      ['authorizer.requestResource', T.struct('kubernetes.authorization.ResourceCheck')],
    ]),
    structs: new Map(),
  });

  /** Runs `expression` as the admission plugin does: unanswered checks are answered and the expression runs again. */
  function run(expression: string, decide: (check: AuthorizationCheck) => AuthorizationAnswer) {
    const program = compileCel(expression, env());
    const answers = new Map<string, AuthorizationAnswer>();
    const asked: AuthorizationCheck[] = [];
    const bindings = authorizerBindings(user, (check) => answers.get(JSON.stringify(check)), request);
    for (let round = 0; round < 8; round++) {
      try {
        return { ...program.evaluateWithCost(bindings, 1_000_000), asked };
      } catch (error) {
        if (!(error instanceof PendingAuthorization)) throw error;
        asked.push(error.check);
        answers.set(JSON.stringify(error.check), decide(error.check));
      }
    }
    throw new Error('did not settle');
  }

  it('asks the authorizer what the expression checks, and charges the final run only', () => {
    const out = run("authorizer.group('apps').resource('deployments').namespace('ns').name('web').check('update').allowed()", (c) => ({
      decision: c.verb === 'update' && c.name === 'web' ? 'allow' : 'deny',
      reason: '',
    }));
    expect(out).toMatchObject({ ok: true, value: true });
    // Identifiers and calls cost 1 each, the check 350,000 (Kubernetes' library cost).
    expect(out.cost).toBe(350_006);
    expect(out.asked).toEqual([
      expect.objectContaining({
        user,
        verb: 'update',
        resourceRequest: true,
        apiGroup: 'apps',
        apiVersion: '*',
        resource: 'deployments',
        namespace: 'ns',
        name: 'web',
      }),
    ]);
  });

  it('checks the request resource, non-resource paths and service accounts', () => {
    expect(run("authorizer.requestResource.check('delete').reason()", () => ({ decision: 'deny', reason: 'no RBAC policy matched' }))).toMatchObject({
      ok: true,
      value: 'no RBAC policy matched',
    });
    const path = run("authorizer.path('/metrics').check('get').allowed()", () => ({ decision: 'allow', reason: '' }));
    expect(path.asked[0]).toMatchObject({ resourceRequest: false, path: '/metrics', verb: 'get' });
    const sa = run("authorizer.serviceAccount('ns', 'builder').group('').resource('pods').check('list').allowed()", () => ({ decision: 'allow', reason: '' }));
    expect(sa.asked[0].user).toEqual({ username: 'system:serviceaccount:ns:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns'] });
    expect(run("authorizer.serviceAccount('ns', 'Not Valid').path('/').check('get').allowed()", () => ({ decision: 'allow', reason: '' }))).toMatchObject({
      ok: false,
      error: 'Invalid service account name',
    });
  });

  it('reports an authorizer that could not decide', () => {
    expect(
      run("authorizer.path('/x').check('get').errored() && authorizer.path('/x').check('get').error() == 'webhook down'", () => ({
        decision: 'noOpinion',
        reason: '',
        error: 'webhook down',
      })),
    ).toMatchObject({
      ok: true,
      value: true,
    });
  });

  it('short-circuits: a check behind a false condition is never asked', () => {
    const out = run("false && authorizer.path('/').check('get').allowed()", () => ({ decision: 'allow', reason: '' }));
    expect(out).toMatchObject({ ok: true, value: false });
    expect(out.asked).toEqual([]);
  });
});

describe('values of the types the checker gives fields', () => {
  it('hands rules date-time, date and duration strings as timestamps and durations', () => {
    const schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            started: { type: 'string', format: 'date-time' },
            day: { type: 'string', format: 'date' },
            timeout: { type: 'string', format: 'duration' },
          },
          'x-svc-validations': [
            { rule: "self.started < timestamp('2030-01-01T00:00:00Z')", message: 'too late' },
            { rule: "self.day == timestamp('2024-02-29T00:00:00Z')", message: 'wrong day' },
            { rule: "self.timeout <= duration('1h')", message: 'too long' },
          ],
        },
      },
    } as JsonSchema;
    const rules = ValidationRuleSet.of(schema)!;
    expect(rules.validate({ spec: { started: '2024-01-01T10:00:00Z', day: '2024-02-29', timeout: '30m' } })).toEqual([]);
    expect(rules.validate({ spec: { started: '2031-01-01T10:00:00Z', day: '2024-03-01', timeout: '2h' } }).map((e) => e.detail)).toEqual([
      'too late',
      'wrong day',
      'too long',
    ]);
  });
});

describe('escaped property names at run time', () => {
  it('reads a property by its escaped name and a keyword-named one by both names', () => {
    const schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: { 'max-size': { type: 'integer' }, namespace: { type: 'string' } },
          'x-svc-validations': [{ rule: "self.max__dash__size < 10 && self.namespace == 'a' && self.__namespace__ == 'a'", message: 'no' }],
        },
      },
    } as JsonSchema;
    const rules = ValidationRuleSet.of(schema)!;
    expect(rules.validate({ spec: { 'max-size': 3, namespace: 'a' } })).toEqual([]);
    expect(rules.validate({ spec: { 'max-size': 30, namespace: 'a' } }).map((e) => e.detail)).toEqual(['no']);
  });
});
