import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import { runKubectl } from './support/kubectl-run';

// The CEL environment of Kubernetes 1.32 on the real svc-apiserver, through kubectl 1.32: CRD rules
// with the format library and optional field selection, rules refused when written because they do
// not type-check, and ValidatingAdmissionPolicies with optional types and with the authorizer. The
// fixtures are ours, with the shapes of Gateway API's experimental XBackend (a port name checked with
// format.dns1123Label) and of its routes' optional TLS settings.

const GROUP = 'cel-env.example.com';

type Json = Record<string, unknown>;

const backendSpec = {
  type: 'object',
  properties: {
    ports: {
      type: 'array',
      maxItems: 16,
      items: {
        type: 'object',
        required: ['port'],
        properties: {
          port: { type: 'integer', minimum: 1, maximum: 65535 },
          // As a Kubernetes user would write it: validate() is optional.none() for a good name.
          name: {
            type: 'string',
            maxLength: 63,
            'x-kubernetes-validations': [
              {
                rule: 'size(self) == 0 || !format.dns1123Label().validate(self).hasValue()',
                // join() of the list would be refused: its size is unknown to the estimate, as in Kubernetes.
                messageExpression: 'format.dns1123Label().validate(self).value()[0]',
              },
            ],
          },
          // As Gateway API's XBackend writes it: an optional is never null in cel-go, so a 1.32 server
          // refuses every non-empty value here.
          alias: {
            type: 'string',
            maxLength: 253,
            'x-kubernetes-validations': [{ rule: 'size(self) == 0 || format.dns1123Label().validate(self) == null', message: 'alias must be a DNS label' }],
          },
        },
      },
    },
    tls: {
      type: 'object',
      properties: {
        mode: { type: 'string', enum: ['Terminate', 'Passthrough'] },
        certificateRefs: { type: 'array', maxItems: 4, items: { type: 'string', maxLength: 253 } },
      },
      'x-kubernetes-validations': [
        {
          rule: "self.?mode.orValue('Terminate') == 'Terminate' || self.?certificateRefs.orValue([]).size() == 0",
          message: 'certificateRefs need mode Terminate',
        },
      ],
    },
  },
  'x-kubernetes-validations': [
    { rule: "self.?tls.?mode.orValue('Terminate') != 'Passthrough' || self.ports.all(p, p.port == 443)", message: 'passthrough takes port 443 only' },
  ],
};

function crd(plural: string, kind: string, spec: Json): Json {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural, singular: plural.slice(0, -1), kind, listKind: `${kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec } } } }],
    },
  };
}

describe("CEL with Kubernetes 1.32's environment", () => {
  let server: ApiServerProcess;
  let dir: string;

  const kubectl = (...args: string[]) => runKubectl(args, server.kubectlEnv, 60_000);
  const manifest = async (name: string, body: unknown): Promise<string> => {
    const file = join(dir, name);
    await writeFile(file, JSON.stringify(body));
    return file;
  };
  const backend = (name: string, spec: Json) => ({ apiVersion: `${GROUP}/v1`, kind: 'Backend', metadata: { name, namespace: 'default' }, spec });

  beforeAll(async () => {
    // RBAC, so that the authorizer of policies has something to decide; kubectl's admin is a system:master.
    server = await startApiServerProcess({ args: ['--authorization-mode=RBAC'] });
    dir = await mkdtemp(join(tmpdir(), 'cel-env-e2e-'));
    const applied = await kubectl('apply', '--server-side', '-f', await manifest('backends.json', crd('backends', 'Backend', backendSpec)));
    expect({ code: applied.code, stderr: applied.stderr }).toEqual({ code: 0, stderr: '' });
    await eventually(async () => expect((await kubectl('get', 'backends', '-n', 'default')).code).toBe(0));
  });

  afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('accepts what the rules allow', async () => {
    const good = backend('good', {
      ports: [{ port: 443, name: 'https' }, { port: 8443 }],
      tls: { mode: 'Terminate', certificateRefs: ['cert-a'] },
    });
    const res = await kubectl('apply', '--server-side', '-f', await manifest('good.json', good));
    expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: '' });
  });

  it("refuses a bad port name with the format library's message", async () => {
    const res = await kubectl(
      'apply',
      '--server-side',
      '-f',
      await manifest('bad-name.json', backend('bad-name', { ports: [{ port: 80, name: 'Not_A_Label' }] })),
    );
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain(
      "spec.ports[0].name: Invalid value: \"string\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    );
  });

  it('refuses every non-empty value of a rule comparing an optional with null, as a 1.32 server does', async () => {
    const res = await kubectl('apply', '--server-side', '-f', await manifest('alias.json', backend('alias', { ports: [{ port: 80, alias: 'web' }] })));
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('spec.ports[0].alias: Invalid value: "string": alias must be a DNS label');
    const empty = await kubectl(
      'apply',
      '--server-side',
      '-f',
      await manifest('alias-empty.json', backend('alias-empty', { ports: [{ port: 80, alias: '' }] })),
    );
    expect(empty.stderr).toBe('');
  });

  it('reads absent fields through optional selection', async () => {
    const refused = await kubectl(
      'apply',
      '--server-side',
      '-f',
      await manifest('pass.json', backend('pass', { ports: [{ port: 80 }], tls: { mode: 'Passthrough', certificateRefs: ['c'] } })),
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('spec.tls: Invalid value: "object": certificateRefs need mode Terminate');
    expect(refused.stderr).toContain('spec: Invalid value: "object": passthrough takes port 443 only');
    const accepted = await kubectl(
      'apply',
      '--server-side',
      '-f',
      await manifest('pass-ok.json', backend('pass-ok', { ports: [{ port: 443 }], tls: { mode: 'Passthrough' } })),
    );
    expect(accepted.stderr).toBe('');
  });

  it('runs a ValidatingAdmissionPolicy written with optional types and the format library', async () => {
    const name = 'tier-labels.cel-env.example.com';
    const apply = async (file: string, body: Json) => {
      const res = await kubectl('apply', '-f', await manifest(file, body));
      expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: '' });
    };
    await apply('tier-policy.json', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }] },
        validations: [
          {
            expression: "object.metadata.?labels[?'tier'].orValue('web') in ['web', 'db']",
            messageExpression: "'tier ' + object.metadata.labels['tier'] + ' is not known'",
          },
          {
            expression: "!format.dns1123Label().validate(object.?data[?'owner'].orValue('nobody')).hasValue()",
            message: 'owner must be a DNS label',
          },
        ],
      },
    });
    await apply('tier-binding.json', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name },
      spec: { policyName: name, validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { 'cel-env': 'on' } } } },
    });
    expect((await kubectl('create', 'namespace', 'cel-env-policy')).stderr).toBe('');
    expect((await kubectl('label', 'namespace', 'cel-env-policy', 'cel-env=on')).stderr).toBe('');
    const configMap = (cm: string, labels: Json, data: Json) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: cm, namespace: 'cel-env-policy', labels },
      data,
    });
    await eventually(async () => {
      const res = await kubectl('apply', '-f', await manifest('cm-cache.json', configMap('cache', { tier: 'cache' }, {})));
      expect(res.stderr).toContain(`ValidatingAdmissionPolicy '${name}' with binding '${name}' denied request: tier cache is not known`);
    });
    const badOwner = await kubectl('apply', '-f', await manifest('cm-owner.json', configMap('owner', {}, { owner: 'Team A' })));
    expect(badOwner.stderr).toContain('denied request: owner must be a DNS label');
    const good = await kubectl('apply', '-f', await manifest('cm-good.json', configMap('good', { tier: 'db' }, { owner: 'team-a' })));
    expect(good.stderr).toBe('');
    const bare = await kubectl('apply', '-f', await manifest('cm-bare.json', configMap('bare', {}, {})));
    expect(bare.stderr).toBe('');
  });

  it("refuses a CRD whose rules do not type-check, with Kubernetes' messages", async () => {
    const widgetSpec = {
      type: 'object',
      properties: { replicas: { type: 'integer' }, name: { type: 'string', maxLength: 63 } },
      'x-kubernetes-validations': [{ rule: 'self.replicas + "x" == "1x"' }, { rule: "self.nmae == 'web'" }, { rule: 'self.name.matches("[")' }],
    };
    const res = await kubectl('apply', '--server-side', '-f', await manifest('widgets.json', crd('widgets', 'Widget', widgetSpec)));
    expect(res.code).not.toBe(0);
    const at = 'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations';
    expect(res.stderr).toContain(
      `${at}[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.replicas + \\"x\\" == \\"1x\\"", Message:"", MessageExpression:"", ` +
        `Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ` +
        `ERROR: <input>:1:15: found no matching overload for '_+_' applied to '(int, string)'`,
    );
    expect(res.stderr).toContain("compilation failed: ERROR: <input>:1:5: undefined field 'nmae'");
    expect(res.stderr).toContain('compilation failed: ERROR: <input>:1:19: invalid matches argument');
    expect((await kubectl('get', 'crd', `widgets.${GROUP}`)).stderr).toContain('NotFound');
  });

  it("refuses a policy whose expression does not type-check, with Kubernetes' message", async () => {
    const res = await kubectl(
      'apply',
      '-f',
      await manifest('bad-policy.json', {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: 'bad.cel-env.example.com' },
        spec: {
          failurePolicy: 'Fail',
          matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
          validations: [{ expression: "request.operation == 1 || params.allowed || object.metadata.name.size() > 'a'" }],
        },
      }),
    );
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain(
      'spec.validations[0].expression: Invalid value: "request.operation == 1 || params.allowed || object.metadata.name.size() > \'a\'": compilation failed: ',
    );
    expect(res.stderr).toContain("ERROR: <input>:1:19: found no matching overload for '_==_' applied to '(string, int)'");
    expect(res.stderr).toContain("ERROR: <input>:1:27: undeclared reference to 'params' (in container '')");
    expect(res.stderr).toContain("ERROR: <input>:1:73: found no matching overload for '_>_' applied to '(int, string)'");
  });

  it('lets a policy ask the authorizer: only users who may update the release gate create release config maps', async () => {
    const ns = 'cel-authz';
    const name = 'release-gate.cel-env.example.com';
    const rbac = {
      apiVersion: 'v1',
      kind: 'List',
      items: [
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { 'cel-authz': 'on' } } },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'release-gate', namespace: ns } },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: { name: 'writer', namespace: ns },
          rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'get'] }],
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: { name: 'gatekeeper', namespace: ns },
          rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['release-gate'], verbs: ['update'] }],
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: 'writers', namespace: ns },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'writer' },
          subjects: [
            { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' },
            { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' },
          ],
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: 'gatekeepers', namespace: ns },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'gatekeeper' },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
        },
        {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingAdmissionPolicy',
          metadata: { name },
          spec: {
            failurePolicy: 'Fail',
            matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
            matchConditions: [{ name: 'release', expression: "has(object.metadata.labels) && object.metadata.labels.exists(k, k == 'release')" }],
            variables: [
              {
                name: 'gate',
                expression: "authorizer.group('').resource('configmaps').namespace(object.metadata.namespace).name('release-gate').check('update')",
              },
            ],
            validations: [
              {
                expression: "authorizer.group('').resource('configmaps').namespace(object.metadata.namespace).name('release-gate').check('update').allowed()",
                messageExpression: "request.userInfo.username + ' may not update the release gate'",
              },
            ],
          },
        },
        {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingAdmissionPolicyBinding',
          metadata: { name },
          spec: { policyName: name, validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { 'cel-authz': 'on' } } } },
        },
      ],
    };
    const installed = await kubectl('apply', '-f', await manifest('authz.json', rbac));
    expect({ code: installed.code, stderr: installed.stderr }).toEqual({ code: 0, stderr: '' });
    const release = (cm: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: cm, namespace: ns, labels: { release: 'v2' } } });
    await eventually(async () => {
      const bob = await kubectl('create', '--as=bob', '-f', await manifest('bob.json', release('by-bob')));
      expect(bob.stderr).toContain(`ValidatingAdmissionPolicy '${name}' with binding '${name}' denied request: bob may not update the release gate`);
    });
    const alice = await kubectl('create', '--as=alice', '-f', await manifest('alice.json', release('by-alice')));
    expect({ code: alice.code, stderr: alice.stderr }).toEqual({ code: 0, stderr: '' });
    // Without the label the match condition leaves the policy out, for everybody.
    const plain = await kubectl('create', 'configmap', 'plain', '-n', ns, '--as=bob');
    expect({ code: plain.code, stderr: plain.stderr }).toEqual({ code: 0, stderr: '' });
  });
});
