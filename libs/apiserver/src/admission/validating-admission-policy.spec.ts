import { builtinScheme, type ApiObject, type ValidatingAdmissionPolicy, type ValidatingAdmissionPolicyBinding } from '@svc/api';
import { isStatusError } from '@svc/machinery';
import type { AdmissionAttributes } from './admission';
import { validatingAdmissionPolicy } from './validating-admission-policy';

const configMaps = builtinScheme().byResource({ group: '', version: 'v1', resource: 'configmaps' })!;
const namespaces = new Map<string, ApiObject>([['team-a', { metadata: { name: 'team-a', labels: { team: 'a' } } }]]);

function attributes(object: ApiObject, namespace = 'team-a'): AdmissionAttributes {
  return { operation: 'CREATE', definition: configMaps, namespace, name: object.metadata?.name ?? '', subresource: '', object, dryRun: false, warnings: [] };
}

const limits: ApiObject[] = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'limits', namespace: 'team-a', labels: { role: 'limit' } }, data: { max: '2' } },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'strict', namespace: 'team-a', labels: { role: 'limit' } }, data: { max: '1' } },
];

function plugin(policy: ValidatingAdmissionPolicy['spec'], binding: Partial<NonNullable<ValidatingAdmissionPolicyBinding['spec']>> = {}) {
  const policies: ValidatingAdmissionPolicy[] = [
    {
      metadata: { name: 'p' },
      spec: { matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] }, ...policy },
    },
  ];
  const bindings: ValidatingAdmissionPolicyBinding[] = [{ metadata: { name: 'b' }, spec: { policyName: 'p', validationActions: ['Deny'], ...binding } }];
  return validatingAdmissionPolicy({
    namespaces: async (n) => namespaces.get(n),
    policies: async () => policies,
    bindings: async () => bindings,
    params: async (q) =>
      limits.filter(
        (o) =>
          o.metadata?.namespace === q.namespace &&
          (q.name === undefined ? o.metadata?.labels?.role === q.selector?.matchLabels?.role : o.metadata?.name === q.name),
      ),
  });
}

async function refusal(promise: Promise<unknown> | void): Promise<{ code: number; message: string } | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    if (isStatusError(error)) return { code: error.code, message: error.status.message ?? '' };
    throw error;
  }
}

describe('ValidatingAdmissionPolicy', () => {
  const big: ApiObject = { metadata: { name: 'big', labels: { size: 'big' } }, data: { a: '1', b: '2', c: '3' } };

  it('denies with the message, messageExpression or failed expression, with the reason code', async () => {
    const p = plugin({
      validations: [{ expression: 'size(object.data) <= 2', messageExpression: "'too many: ' + string(size(object.data))", reason: 'Invalid' }],
    });
    expect(await refusal(p.validate!(attributes(big)))).toEqual({
      code: 422,
      message: "configmaps \"big\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: too many: 3",
    });
    const plain = plugin({ validations: [{ expression: 'size(object.data) <= 2' }] });
    // Without a reason of its own a failure is Invalid, as in Kubernetes.
    expect(await refusal(plain.validate!(attributes(big)))).toEqual({
      code: 422,
      message: "configmaps \"big\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed expression: size(object.data) <= 2",
    });
    expect(await refusal(plain.validate!(attributes({ metadata: { name: 'small' }, data: { a: '1' } })))).toBeUndefined();
  });

  it('warns instead with a Warn binding, reads variables, namespaceObject and request, and honours matchConditions', async () => {
    const attrs = attributes(big);
    const p = plugin(
      {
        variables: [
          { name: 'keys', expression: 'size(object.data)' },
          { name: 'limit', expression: "namespaceObject.metadata.labels.team == 'a' ? 2 : 10" },
        ],
        validations: [{ expression: 'variables.keys <= variables.limit', messageExpression: "request.operation + ' of ' + request.name + ' over the limit'" }],
      },
      { validationActions: ['Warn'] },
    );
    await p.validate!(attrs);
    expect(attrs.warnings).toEqual(["Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': CREATE of big over the limit"]);
    // An Audit binding records the first failure in the request's audit annotations, as Kubernetes does.
    const audited = { ...attributes(big), auditAnnotations: {} as Record<string, string> };
    await plugin(
      { validations: [{ expression: 'true' }, { expression: 'size(object.data) <= 2', message: 'too many' }] },
      { validationActions: ['Audit', 'Warn'] },
    ).validate!(audited);
    expect(audited.auditAnnotations).toEqual({
      'validation.policy.admission.k8s.io/validation_failure':
        '[{"expressionIndex":1,"message":"too many","validationActions":["Audit","Warn"],"binding":"b","policy":"p"}]',
    });
    const skipped = plugin({
      matchConditions: [{ name: 'only-small', expression: "object.metadata.labels.size == 'small'" }],
      validations: [{ expression: 'false' }],
    });
    expect(await refusal(skipped.validate!(attributes(big)))).toBeUndefined();
  });

  it('fails closed on an error unless failurePolicy is Ignore, and bounds the cost of an evaluation', async () => {
    const broken = { validations: [{ expression: 'object.missing.field == 1' }] };
    expect((await refusal(plugin(broken).validate!(attributes(big))))?.message).toContain("expression 'object.missing.field == 1' resulted in error");
    expect(await refusal(plugin({ ...broken, failurePolicy: 'Ignore' }).validate!(attributes(big)))).toBeUndefined();
    const wide: ApiObject = { metadata: { name: 'wide' }, data: Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`k${i}`, 'v'])) };
    const quadratic = plugin({ validations: [{ expression: 'object.data.all(a, object.data.all(b, a == b || a != b))' }] });
    expect((await refusal(quadratic.validate!(attributes(wide))))?.message).toContain('actual cost limit exceeded');
  });

  it('runs the validations once per param of the binding, and follows parameterNotFoundAction', async () => {
    const spec = {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [
        { expression: 'size(object.data) <= int(params.data.max)', messageExpression: "'at most ' + params.data.max + ' keys (' + params.metadata.name + ')'" },
      ],
    };
    const two: ApiObject = { metadata: { name: 'two' }, data: { a: '1', b: '2' } };
    expect(await refusal(plugin(spec, { paramRef: { name: 'limits' } }).validate!(attributes(two)))).toBeUndefined();
    expect((await refusal(plugin(spec, { paramRef: { selector: { matchLabels: { role: 'limit' } } } }).validate!(attributes(two))))?.message).toBe(
      "configmaps \"two\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: at most 1 keys (strict)",
    );
    expect((await refusal(plugin(spec, { paramRef: { name: 'missing' } }).validate!(attributes(two))))?.message).toBe(
      "configmaps \"two\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: no params found for policy binding with 'Deny' parameterNotFoundAction",
    );
    expect(await refusal(plugin(spec, { paramRef: { name: 'missing', parameterNotFoundAction: 'Allow' } }).validate!(attributes(two)))).toBeUndefined();
    expect((await refusal(plugin(spec).validate!(attributes(two))))?.message).toContain('paramRef is required');
  });
});
