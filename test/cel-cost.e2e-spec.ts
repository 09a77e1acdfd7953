import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkValidationRules, markerSpelling, withSvcMarkers, type JsonSchema } from '@svc/api';
import { ApiClient } from './support/api-client';
import { create, eventually, expectFailure, expectStatus } from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import { runKubectl } from './support/kubectl-run';

// The cost of CEL as Kubernetes 1.32 counts it, on the real svc-apiserver with kubectl. The fixtures
// are ours, with the shapes of the ecosystem's most used CRDs (Gateway API's listeners, route
// matches and hostnames; prometheus-operator's receivers): the same list sizes, nesting and kinds of
// rules, which the old estimate refused (`estimated rule cost exceeds budget by factor of 32.2x`).

const GROUP = 'cel-cost.example.com';
const GUARDED_GROUP = 'guarded.cel-cost.example.com';

type Json = Record<string, unknown>;

const string = (maxLength?: number): JsonSchema => ({ type: 'string', ...(maxLength === undefined ? {} : { maxLength }) });

function crd(plural: string, kind: string, spec: JsonSchema, options: { group?: string; annotations?: Record<string, string> } = {}): Json {
  const group = options.group ?? GROUP;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}`, ...(options.annotations ? { annotations: options.annotations } : {}) },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: plural.slice(0, -1), kind, listKind: `${kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec } } } }],
    },
  };
}

/** Gateway listeners: a map list of 64 entries, rules comparing every entry with every other. */
const portalSpec: JsonSchema = {
  type: 'object',
  properties: {
    entries: {
      type: 'array',
      maxItems: 64,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: {
        type: 'object',
        required: ['name', 'port', 'protocol'],
        properties: {
          name: string(253),
          port: { type: 'integer', minimum: 1, maximum: 65535 },
          protocol: string(255),
          hostname: string(253),
          tls: { type: 'object', properties: { mode: { type: 'string', enum: ['Terminate', 'Passthrough'] } } },
        },
      },
      'x-kubernetes-validations': [
        { rule: "self.all(e, e.protocol in ['HTTP', 'TCP', 'UDP'] ? !has(e.tls) : true)", message: 'tls only for TLS protocols' },
        { rule: 'self.all(a, self.exists_one(b, a.name == b.name))', message: 'entry names must be unique' },
        {
          rule: 'self.all(a, self.exists_one(b, a.port == b.port && a.protocol == b.protocol && (has(a.hostname) && has(b.hostname) ? a.hostname == b.hostname : !has(a.hostname) && !has(b.hostname))))',
          message: 'port, protocol and hostname must be unique',
        },
      ],
    },
  },
};

/** HTTPRoute matches: 16 rules of 64 matches each, string rules on each match's path (cardinality 1024). */
const routeSpec: JsonSchema = {
  type: 'object',
  properties: {
    rules: {
      type: 'array',
      maxItems: 16,
      items: {
        type: 'object',
        properties: {
          matches: {
            type: 'array',
            maxItems: 64,
            items: {
              type: 'object',
              properties: {
                path: {
                  type: 'object',
                  properties: { kind: { type: 'string', enum: ['Exact', 'Prefix', 'Pattern'] }, value: string(1024) },
                  'x-kubernetes-validations': [
                    { rule: "(self.kind in ['Exact','Prefix']) ? self.value.startsWith('/') : true", message: 'must be an absolute path' },
                    { rule: "(self.kind in ['Exact','Prefix']) ? !self.value.contains('//') : true", message: "must not contain '//'" },
                    {
                      rule: '(self.kind in [\'Exact\',\'Prefix\']) ? self.value.matches(r"""^(?:[-A-Za-z0-9/._~]|[%][0-9a-fA-F]{2})+$""") : true',
                      message: 'bad characters',
                    },
                  ],
                },
              },
            },
          },
        },
      },
    },
  },
};

/** TLSRoute hostnames: 1024 names, each checked with isIP and regexes. */
const hostListSpec: JsonSchema = {
  type: 'object',
  properties: {
    hostnames: {
      type: 'array',
      maxItems: 1024,
      items: string(253),
      'x-kubernetes-validations': [
        { rule: 'self.all(h, !isIP(h))', message: 'no IPs' },
        {
          rule: "self.all(h, h.contains('*') ? (h.startsWith('*.') && h.substring(2).matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')) : true)",
          message: 'bad wildcard',
        },
      ],
    },
  },
};

/** AlertmanagerConfig receivers: unbounded lists in unbounded lists, a presence rule at the bottom. */
const notifierSpec: JsonSchema = {
  type: 'object',
  properties: {
    receivers: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string' },
          channels: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                signing: {
                  type: 'object',
                  properties: { region: { type: 'string' }, roleArn: { type: 'string' }, externalId: { type: 'string', minLength: 1 } },
                  'x-kubernetes-validations': [{ rule: '!has(self.externalId) || has(self.roleArn)', message: 'externalId needs roleArn' }],
                },
              },
            },
          },
        },
      },
    },
  },
};

/** Each fixture rule's cost: one evaluation, its cardinality, and the product held to 10,000,000. */
const EXPECTED: Record<string, Array<[rule: string, cost: number, cardinality: number]>> = {
  portals: [
    // Hand-computed: 64 × (2 + 1 + 15 + 2) + 2, the `in` of a 3-item literal (2 + 10 + 3), then !has() (has is free).
    ["self.all(e, e.protocol in ['HTTP', 'TCP', 'UDP'] ? !has(e.tls) : true)", 1282, 1],
    // Hand-computed: the names compare in ceil(1012 × 0.1) = 102 (maxLength 253 is 1012 bytes); exists_one
    // costs 64 × 108 + 3 = 6915, and all() 64 × (3 + 6915) + 2.
    ['self.all(a, self.exists_one(b, a.name == b.name))', 442754, 1],
    [
      'self.all(a, self.exists_one(b, a.port == b.port && a.protocol == b.protocol && (has(a.hostname) && has(b.hostname) ? a.hostname == b.hostname : !has(a.hostname) && !has(b.hostname))))',
      901506,
      1,
    ],
  ],
  routes: [
    // 14 for the `in` (2 + 10 + 2), 2 + ceil(1 × 0.1) for startsWith: only the prefix is walked.
    ["(self.kind in ['Exact','Prefix']) ? self.value.startsWith('/') : true", 17, 1024],
    // 14 for the `in`, 2 + ceil(4096 × 0.1) × ceil(2 × 0.1) + 1 for the negated contains.
    ["(self.kind in ['Exact','Prefix']) ? !self.value.contains('//') : true", 427, 1024],
    // 14 + 2 + ceil(4097 × 0.1) × ceil(41 × 0.25) = 14 + 2 + 410 × 11.
    ['(self.kind in [\'Exact\',\'Prefix\']) ? self.value.matches(r"""^(?:[-A-Za-z0-9/._~]|[%][0-9a-fA-F]{2})+$""") : true', 4526, 1024],
  ],
  hostlists: [
    // 1024 × (2 + 1 + 1 + 102 + 1) + 2: isIP walks its 1012 bytes.
    ['self.all(h, !isIP(h))', 109570, 1],
    // Hand-computed: contains 1 + 102; startsWith 2; substring 1 + 102 keeps the size 1012, so matches
    // costs ceil(1013 × 0.1) × ceil(31 × 0.25) = 816; 1024 × (2 + 1 + 103 + 2 + 103 + 816) + 2.
    ["self.all(h, h.contains('*') ? (h.startsWith('*.') && h.substring(2).matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')) : true)", 1051650, 1],
  ],
  notifiers: [
    // Under two unbounded lists: 3 MiB over the smallest object ({} and a comma) is 1,048,576 evaluations.
    ['!has(self.externalId) || has(self.roleArn)', 3, 1048576],
  ],
};

const FIXTURES: Record<string, { kind: string; spec: JsonSchema }> = {
  portals: { kind: 'Portal', spec: portalSpec },
  routes: { kind: 'Route', spec: routeSpec },
  hostlists: { kind: 'HostList', spec: hostListSpec },
  notifiers: { kind: 'Notifier', spec: notifierSpec },
};

describe('CEL costs as Kubernetes 1.32 counts them', () => {
  let server: ApiServerProcess;
  let client: ApiClient;
  let dir: string;

  const kubectl = (...args: string[]) => runKubectl(args, server.kubectlEnv, 60_000);
  const manifest = async (name: string, body: unknown): Promise<string> => {
    const file = join(dir, name);
    await writeFile(file, JSON.stringify(body));
    return file;
  };

  beforeAll(async () => {
    server = await startApiServerProcess();
    client = new ApiClient(server.url, server.ca);
    dir = await mkdtemp(join(tmpdir(), 'cel-cost-e2e-'));
  });

  afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("estimates each fixture rule at Kubernetes' figure", () => {
    for (const [plural, { spec }] of Object.entries(FIXTURES)) {
      const schema = { type: 'object', properties: { spec } };
      const { errors, costs } = checkValidationRules(withSvcMarkers(schema), 'schema', { marker: markerSpelling(schema) });
      expect(errors).toEqual([]);
      const measured = costs.map((c) => [c.rule, Number(c.cost), Number(c.cardinality)]);
      expect({ [plural]: measured }).toEqual({ [plural]: EXPECTED[plural] });
    }
  });

  it('installs each fixture with kubectl apply --server-side, and applies it again unchanged', async () => {
    for (const [plural, { kind, spec }] of Object.entries(FIXTURES)) {
      const file = await manifest(`${plural}.json`, crd(plural, kind, spec));
      for (let i = 0; i < 2; i++) {
        const res = await kubectl('apply', '--server-side', '-f', file);
        expect({ plural, code: res.code, stderr: res.stderr }).toEqual({ plural, code: 0, stderr: '' });
        expect(res.stdout).toContain(`customresourcedefinition.apiextensions.k8s.io/${plural}.${GROUP} serverside-applied`);
      }
    }
    await kubectl('wait', '--for=condition=Established', `crd/portals.${GROUP}`, '--timeout=20s');
  });

  it("runs the fixture's rules on its objects", async () => {
    const portals = `/apis/${GROUP}/v1/namespaces/default/portals`;
    await eventually(async () => expectStatus(await client.get(portals), 200));
    const portal = (name: string, entries: Json[]) => ({ apiVersion: `${GROUP}/v1`, kind: 'Portal', metadata: { name }, spec: { entries } });
    await create(
      client,
      portals,
      portal('good', [
        { name: 'http', port: 80, protocol: 'HTTP' },
        { name: 'https', port: 443, protocol: 'HTTPS', hostname: 'a.example.com', tls: { mode: 'Terminate' } },
      ]),
    );
    const res = await client.post(
      portals,
      portal('clash', [
        { name: 'a', port: 80, protocol: 'HTTP' },
        { name: 'b', port: 80, protocol: 'HTTP' },
      ]),
    );
    expect(expectFailure(res, 422, 'Invalid').details?.causes).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.entries', message: 'Invalid value: "array": port, protocol and hostname must be unique' },
    ]);
  });

  it('charges a rule only for what it evaluates: || stops at its first true operand', async () => {
    const rule = "self.mode != 'strict' || self.items.all(a, self.items.all(b, a == b || a != b))";
    const file = await manifest(
      'sweeps.json',
      crd('sweeps', 'Sweep', {
        type: 'object',
        properties: { mode: { type: 'string', maxLength: 10 }, items: { type: 'array', maxItems: 400, items: string(8) } },
        'x-kubernetes-validations': [{ rule }],
      }),
    );
    const applied = await kubectl('apply', '--server-side', '-f', file);
    expect(applied.stderr).toBe('');
    const sweeps = `/apis/${GROUP}/v1/namespaces/default/sweeps`;
    await eventually(async () => expectStatus(await client.get(sweeps), 200));
    const items = Array.from({ length: 400 }, (_, i) => `v${i}`);
    const sweep = (name: string, mode: string) => ({ apiVersion: `${GROUP}/v1`, kind: 'Sweep', metadata: { name }, spec: { mode, items } });
    await create(client, sweeps, sweep('loose', 'loose'));
    const res = await client.post(sweeps, sweep('strict', 'strict'));
    expect(expectFailure(res, 422, 'Invalid').details?.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec',
        message: `Invalid value: "object": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${rule}`,
      },
    ]);
  });

  describe('a ValidatingAdmissionPolicy shaped as Gateway API safe-upgrades', () => {
    const base = '/apis/admissionregistration.k8s.io/v1';
    const name = 'safe-upgrades.cel-cost.example.com';

    beforeAll(async () => {
      // Its expressions stop at their first test for every group but the guarded one.
      const guarded = `object.spec.group != '${GUARDED_GROUP}'`;
      await create(client, `${base}/validatingadmissionpolicies`, {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name },
        spec: {
          failurePolicy: 'Fail',
          matchConstraints: {
            resourceRules: [{ apiGroups: ['apiextensions.k8s.io'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['*'] }],
          },
          validations: [
            {
              expression: `${guarded} || oldObject == null || (has(object.metadata.annotations) && object.metadata.annotations.exists(k, k == 'cel-cost.example.com/channel') && object.metadata.annotations['cel-cost.example.com/channel'] == 'standard') || (oldObject != null && has(oldObject.metadata.annotations) && oldObject.metadata.annotations.exists(k, k == 'cel-cost.example.com/channel') && oldObject.metadata.annotations['cel-cost.example.com/channel'] == 'experimental')`,
              message: 'experimental over standard is refused',
              reason: 'Invalid',
            },
            {
              expression: `${guarded} || (has(object.metadata.annotations) && object.metadata.annotations.exists(k, k == 'cel-cost.example.com/bundle-version') && !matches(object.metadata.annotations['cel-cost.example.com/bundle-version'], 'v1.[0-3].\\\\d+') && !matches(object.metadata.annotations['cel-cost.example.com/bundle-version'], 'v0'))`,
              message: 'bundles before v1.4 are refused',
              reason: 'Invalid',
            },
          ],
        },
      });
      await create(client, `${base}/validatingadmissionpolicybindings`, {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicyBinding',
        metadata: { name },
        spec: {
          policyName: name,
          validationActions: ['Deny'],
          matchResources: {
            resourceRules: [
              { apiGroups: ['apiextensions.k8s.io'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['customresourcedefinitions'] },
            ],
          },
        },
      });
    });

    it('lets CRDs of other groups be written, large ones too', async () => {
      await eventually(async () => {
        const res = await kubectl('apply', '--server-side', '-f', await manifest('ungated.json', crd('ungateds', 'Ungated', routeSpec)));
        expect(res.stderr).toBe('');
      });
      for (const plural of Object.keys(FIXTURES)) {
        const res = await kubectl('apply', '--server-side', '-f', join(dir, `${plural}.json`));
        expect({ plural, stderr: res.stderr }).toEqual({ plural, stderr: '' });
      }
    });

    it('judges CRDs of the guarded group by their annotations', async () => {
      const old = crd('olds', 'Old', hostListSpec, { group: GUARDED_GROUP, annotations: { 'cel-cost.example.com/bundle-version': 'v1.2.0' } });
      const refused = await kubectl('apply', '--server-side', '-f', await manifest('old.json', old));
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(`ValidatingAdmissionPolicy '${name}' with binding '${name}' denied request: bundles before v1.4 are refused`);
      const current = crd('currents', 'Current', hostListSpec, { group: GUARDED_GROUP, annotations: { 'cel-cost.example.com/bundle-version': 'v1.5.0' } });
      const accepted = await kubectl('apply', '--server-side', '-f', await manifest('current.json', current));
      expect(accepted.stderr).toBe('');
    });
  });
});
