import { createServer, type Server } from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureServingCertificates } from '@svc/apiserver';
import { ApiClient } from './support/api-client';
import { create, eventually, expectFailure, expectStatus } from './support/api-fixtures';
import { type ApiServerProcess, freeLoopbackPort, startApiServerProcess } from './support/apiserver-process';

// CEL validation rules of CRDs, admission webhooks and ValidatingAdmissionPolicies, against the real
// svc-apiserver; the webhook server is this test's own, on loopback over HTTPS with a CA it makes.

const CRD_PATH = '/apis/apiextensions.svc.io/v1/customresourcedefinitions';

function crd(plural: string, kind: string, spec: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.svc.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.cel.example.com` },
    spec: {
      group: 'cel.example.com',
      scope: 'Namespaced',
      names: { plural, singular: plural.slice(0, -1), kind },
      versions: [
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec } } }, subresources: { status: {} } },
      ],
    },
  };
}

describe('admission: CEL rules, webhooks and policies', () => {
  let server: ApiServerProcess;
  let client: ApiClient;

  beforeAll(async () => {
    server = await startApiServerProcess();
    client = new ApiClient(server.url, server.ca);
  });

  afterAll(async () => {
    await server?.stop();
  });

  describe('x-svc-validations on a CRD', () => {
    const gadgets = '/apis/cel.example.com/v1/namespaces/default/gadgets';

    beforeAll(async () => {
      await create(
        client,
        CRD_PATH,
        crd('gadgets', 'Gadget', {
          type: 'object',
          'x-svc-validations': [
            { rule: 'self.minReplicas <= self.maxReplicas', message: 'minReplicas must not exceed maxReplicas', fieldPath: '.minReplicas' },
            {
              rule: 'self.size >= oldSelf.size', // As in Kubernetes, `"..." + string(n)` has no bounded size: its estimate is over the budget.
              messageExpression: "'size may not shrink from %d'.format([oldSelf.size])",
              reason: 'FieldValueForbidden',
            },
          ],
          properties: {
            minReplicas: { type: 'integer' },
            maxReplicas: { type: 'integer' },
            size: { type: 'integer' },
            name: { type: 'string', maxLength: 20, 'x-svc-validations': [{ rule: 'self.matches("^[a-z]+$")', messageExpression: '"bad name: " + self' }] },
          },
        }),
      );
      await eventually(async () => expectStatus(await client.get(gadgets), 200));
    });

    it('accepts a valid object and refuses a bad one with 422 and a cause at the rule field path', async () => {
      await create(client, gadgets, {
        apiVersion: 'cel.example.com/v1',
        kind: 'Gadget',
        metadata: { name: 'good' },
        spec: { minReplicas: 1, maxReplicas: 2, size: 3, name: 'abc' },
      });
      const res = await client.post(gadgets, {
        apiVersion: 'cel.example.com/v1',
        kind: 'Gadget',
        metadata: { name: 'bad' },
        spec: { minReplicas: 3, maxReplicas: 2, size: 1, name: 'A1' },
      });
      const status = expectFailure(res, 422, 'Invalid');
      expect(status.details?.causes).toEqual([
        { reason: 'FieldValueInvalid', field: 'spec.minReplicas', message: 'Invalid value: "object": minReplicas must not exceed maxReplicas' },
        { reason: 'FieldValueInvalid', field: 'spec.name', message: 'Invalid value: "string": bad name: A1' },
      ]);
    });

    it('runs a transition rule with oldSelf on update only', async () => {
      const path = `${gadgets}/good`;
      const current = (await client.get<Record<string, unknown> & { spec: Record<string, unknown> }>(path)).body;
      const res = await client.put(path, { ...current, spec: { ...current.spec, size: 2 } });
      const status = expectFailure(res, 422, 'Invalid');
      expect(status.message).toContain('spec: Forbidden: size may not shrink from 3');
      expectStatus(await client.put(path, { ...current, spec: { ...current.spec, size: 5 } }), 200);
    });

    it('refuses a CRD whose rule is over the cost budget, with Kubernetes message', async () => {
      const res = await client.post(
        CRD_PATH,
        crd('costlies', 'Costly', {
          type: 'object',
          properties: { items: { type: 'array', items: { type: 'string' }, 'x-svc-validations': [{ rule: 'self.all(x, self.all(y, x == y || x != y))' }] } },
        }),
      );
      const status = expectFailure(res, 422, 'Invalid');
      expect(status.details?.causes?.[0]).toMatchObject({
        reason: 'FieldValueForbidden',
        field: 'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[items].x-svc-validations[0].rule',
      });
      expect(status.details?.causes?.[0]?.message).toMatch(/estimated rule cost exceeds budget by factor of more than 100x/);
    });

    it('bounds a costly rule when it runs: an object whose values make it too costly is refused at once', async () => {
      const pairs = '/apis/cel.example.com/v1/namespaces/default/pairs';
      await create(
        client,
        CRD_PATH,
        crd('pairs', 'Pair', {
          type: 'object',
          properties: {
            items: {
              type: 'array',
              maxItems: 1000,
              items: { type: 'string', maxLength: 5 },
              'x-svc-validations': [{ rule: 'self.all(x, self.exists(y, x == y))' }],
            },
          },
        }),
      );
      await eventually(async () => expectStatus(await client.get(pairs), 200));
      const few = Array.from({ length: 10 }, (_, i) => `v${i}`);
      await create(client, pairs, { apiVersion: 'cel.example.com/v1', kind: 'Pair', metadata: { name: 'few' }, spec: { items: few } });
      const many = Array.from({ length: 1000 }, (_, i) => `v${i}`);
      const res = await client.post(pairs, { apiVersion: 'cel.example.com/v1', kind: 'Pair', metadata: { name: 'many' }, spec: { items: many } });
      expect(expectFailure(res, 422, 'Invalid').details?.causes).toEqual([
        {
          reason: 'FieldValueInvalid',
          field: 'spec.items',
          message:
            'Invalid value: "array": \'operation cancelled: actual cost limit exceeded\': no further validation rules will be run due to call cost exceeds limit for rule: self.all(x, self.exists(y, x == y))',
        },
      ]);
    });

    it('refuses a CRD whose rule does not compile', async () => {
      const res = await client.post(CRD_PATH, crd('brokens', 'Broken', { type: 'object', 'x-svc-validations': [{ rule: 'self.a ==' }] }));
      expect(expectFailure(res, 422, 'Invalid').message).toContain('compilation failed');
    });
  });

  describe('admission webhooks', () => {
    let webhookServer: Server;
    let certDir: string;
    let base: string;
    let caBundle: string;
    let downUrl: string;
    const reviews: Array<{ path: string; request: Record<string, unknown> }> = [];

    beforeAll(async () => {
      certDir = await mkdtemp(join(tmpdir(), 'webhook-certs-'));
      const certs = await ensureServingCertificates({ certDir, bindAddress: '127.0.0.1', advertiseAddress: 'hooks.wh-service.svc' });
      caBundle = Buffer.from(certs.caPem!).toString('base64');
      webhookServer = createServer({ key: certs.keyPem, cert: certs.certPem }, (req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
            request: Record<string, unknown> & { uid: string; object?: { data?: Record<string, string>; metadata?: { labels?: Record<string, string> } } };
          };
          const request = review.request;
          reviews.push({ path: req.url ?? '', request });
          let response: Record<string, unknown> = { uid: request.uid, allowed: true };
          if (req.url === '/validate' && request.object?.data?.bad !== undefined) {
            response = {
              uid: request.uid,
              allowed: false,
              status: { code: 403, message: 'bad data is not allowed' },
              warnings: ['checked by the test webhook'],
            };
          }
          if (req.url === '/mutate') {
            const patch = request.object?.metadata?.labels
              ? [{ op: 'add', path: '/metadata/labels/mutated', value: 'yes' }]
              : [{ op: 'add', path: '/metadata/labels', value: { mutated: 'yes' } }];
            response = { ...response, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') };
          }
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response }));
        });
      });
      await new Promise<void>((resolve) => webhookServer.listen(0, '127.0.0.1', resolve));
      const address = webhookServer.address();
      base = `https://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      downUrl = `https://127.0.0.1:${await freeLoopbackPort()}/validate`;
    });

    afterAll(async () => {
      await new Promise<void>((resolve) => webhookServer?.close(() => resolve()));
      await rm(certDir, { recursive: true, force: true });
    });

    async function namespace(name: string): Promise<void> {
      await create(client, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'webhook-test': name } } });
    }

    function webhook(name: string, url: string, namespaceName: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
      return {
        name,
        clientConfig: { url, caBundle },
        rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        namespaceSelector: { matchLabels: { 'webhook-test': namespaceName } },
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        timeoutSeconds: 5,
        ...extra,
      };
    }

    const configMap = (name: string, data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });
    const WEBHOOKS = '/apis/admissionregistration.svc.io/v1';

    it('a validating webhook denies a bad object with its message, and passes a good one', async () => {
      await namespace('wh-validate');
      await create(client, `${WEBHOOKS}/validatingwebhookconfigurations`, {
        apiVersion: 'admissionregistration.svc.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'deny-bad' },
        webhooks: [webhook('deny.example.com', `${base}/validate`, 'wh-validate')],
      });
      const path = '/api/v1/namespaces/wh-validate/configmaps';
      await eventually(async () => {
        const res = await client.post(path, configMap('bad', { bad: 'yes' }));
        const status = expectFailure(res, 403, 'Forbidden');
        expect(status.message).toBe('admission webhook "deny.example.com" denied the request: bad data is not allowed');
        // The warnings of the webhook that refused come with the refusal.
        expect(res.headers.warning).toContain('checked by the test webhook');
      });
      await create(client, path, configMap('good', { fine: 'yes' }));
      const review = reviews.find((r) => r.path === '/validate' && (r.request.object as { metadata?: { name?: string } }).metadata?.name === 'good');
      expect(review?.request).toMatchObject({
        kind: { group: '', version: 'v1', kind: 'ConfigMap' },
        resource: { group: '', version: 'v1', resource: 'configmaps' },
        namespace: 'wh-validate',
        operation: 'CREATE',
        dryRun: false,
        oldObject: null,
      });
      // A webhook of admissionregistration v1 has no side effects, or none on dry runs; a dry run reaches it flagged.
      const refused = await client.post(`${WEBHOOKS}/validatingwebhookconfigurations`, {
        apiVersion: 'admissionregistration.svc.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'side-effects' },
        webhooks: [webhook('side.example.com', `${base}/allow`, 'wh-validate', { sideEffects: 'Some' })],
      });
      expect(expectFailure(refused, 422, 'Invalid').message).toContain(
        'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
      );
      const dry = await client.post(path, configMap('dry', { fine: 'yes' }), { dryRun: 'All' });
      expectStatus(dry, 201);
      expect(reviews.find((r) => (r.request.object as { metadata?: { name?: string } }).metadata?.name === 'dry')?.request.dryRun).toBe(true);
    });

    it('a webhook named by a service reference is reached through the endpoints of the service', async () => {
      await namespace('wh-service');
      const port = Number(new URL(base).port);
      await create(client, '/api/v1/namespaces/wh-service/services', {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'hooks' },
        spec: { ports: [{ name: 'https', port: 443, targetPort: port }] },
      });
      await create(client, '/api/v1/namespaces/wh-service/endpoints', {
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: { name: 'hooks' },
        subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port }] }],
      });
      await create(client, `${WEBHOOKS}/validatingwebhookconfigurations`, {
        apiVersion: 'admissionregistration.svc.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'by-service' },
        webhooks: [
          webhook('service.example.com', '', 'wh-service', {
            clientConfig: { service: { namespace: 'wh-service', name: 'hooks', path: '/validate' }, caBundle },
          }),
        ],
      });
      const path = '/api/v1/namespaces/wh-service/configmaps';
      await eventually(async () => {
        const res = await client.post(path, configMap('bad', { bad: 'yes' }));
        expect(expectFailure(res, 403, 'Forbidden').message).toBe('admission webhook "service.example.com" denied the request: bad data is not allowed');
      });
      await create(client, path, configMap('good', {}));
    });

    it("a mutating webhook's change appears in the stored object", async () => {
      await namespace('wh-mutate');
      await create(client, `${WEBHOOKS}/mutatingwebhookconfigurations`, {
        apiVersion: 'admissionregistration.svc.io/v1',
        kind: 'MutatingWebhookConfiguration',
        metadata: { name: 'add-label' },
        webhooks: [webhook('label.example.com', `${base}/mutate`, 'wh-mutate', { reinvocationPolicy: 'IfNeeded' })],
      });
      const path = '/api/v1/namespaces/wh-mutate/configmaps';
      await eventually(async () => {
        const name = `m-${Math.random().toString(36).slice(2, 7)}`;
        await create(client, path, configMap(name, {}));
        const stored = await client.get<{ metadata: { labels?: Record<string, string> } }>(`${path}/${name}`);
        expect(stored.body.metadata.labels).toEqual({ mutated: 'yes' });
      });
    });

    it('a webhook that is down fails the request with failurePolicy Fail and is skipped with Ignore', async () => {
      await namespace('wh-down-fail');
      await namespace('wh-down-ignore');
      await create(client, `${WEBHOOKS}/validatingwebhookconfigurations`, {
        apiVersion: 'admissionregistration.svc.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'down' },
        webhooks: [
          webhook('fail.example.com', downUrl, 'wh-down-fail', { failurePolicy: 'Fail' }),
          webhook('ignore.example.com', downUrl, 'wh-down-ignore', { failurePolicy: 'Ignore' }),
        ],
      });
      await eventually(async () => {
        const res = await client.post('/api/v1/namespaces/wh-down-fail/configmaps', configMap('x', {}));
        const status = expectFailure(res, 500, 'InternalError');
        expect(status.message).toMatch(
          /^Internal error occurred: failed calling webhook "fail.example.com": failed to call webhook: Post "https:\/\/127.0.0.1:\d+\/validate": /,
        );
      });
      await create(client, '/api/v1/namespaces/wh-down-ignore/configmaps', configMap('x', {}));
    });
  });

  describe('ValidatingAdmissionPolicy', () => {
    it('denies an object with the message of its validation, only where its binding matches', async () => {
      await create(client, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'vap', labels: { policy: 'on' } } });
      const base = '/apis/admissionregistration.svc.io/v1';
      await create(client, `${base}/validatingadmissionpolicies`, {
        apiVersion: 'admissionregistration.svc.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: 'small-configmaps' },
        spec: {
          matchConstraints: { resourceRules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] },
          validations: [
            { expression: '!has(object.data) || object.data.size() <= 2', messageExpression: "'at most 2 keys, got ' + string(object.data.size())" },
            { expression: "!object.metadata.name.startsWith('tmp-')", message: 'no temporary names', reason: 'Invalid' },
          ],
        },
      });
      await create(client, `${base}/validatingadmissionpolicybindings`, {
        apiVersion: 'admissionregistration.svc.io/v1',
        kind: 'ValidatingAdmissionPolicyBinding',
        metadata: { name: 'small-configmaps-binding' },
        spec: { policyName: 'small-configmaps', validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { policy: 'on' } } } },
      });
      const path = '/api/v1/namespaces/vap/configmaps';
      await eventually(async () => {
        const res = await client.post(path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { a: '1', b: '2', c: '3' } });
        expect(expectFailure(res, 422, 'Invalid').message).toBe(
          "configmaps \"big\" is forbidden: ValidatingAdmissionPolicy 'small-configmaps' with binding 'small-configmaps-binding' denied request: at most 2 keys, got 3",
        );
      });
      const invalid = await client.post(path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'tmp-x' } });
      expect(expectFailure(invalid, 422, 'Invalid').message).toContain('no temporary names');
      await create(client, path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'small' }, data: { a: '1' } });
      // A policy with params: the limit comes from a ConfigMap the binding names.
      await create(client, path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'secret-limits' }, data: { maxKeys: '1' } });
      await create(client, `${base}/validatingadmissionpolicies`, {
        apiVersion: 'admissionregistration.svc.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: 'secret-size' },
        spec: {
          paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
          matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'] }] },
          validations: [
            {
              expression: '!has(object.data) || size(object.data) <= int(params.data.maxKeys)',
              messageExpression: "'at most ' + params.data.maxKeys + ' keys'",
            },
          ],
        },
      });
      await create(client, `${base}/validatingadmissionpolicybindings`, {
        apiVersion: 'admissionregistration.svc.io/v1',
        kind: 'ValidatingAdmissionPolicyBinding',
        metadata: { name: 'secret-size-binding' },
        spec: { policyName: 'secret-size', validationActions: ['Deny'], paramRef: { name: 'secret-limits', namespace: 'vap' } },
      });
      await eventually(async () => {
        const res = await client.post('/api/v1/namespaces/vap/secrets', {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 's' },
          data: { a: 'YQ==', b: 'Yg==' },
        });
        expect(expectFailure(res, 422, 'Invalid').message).toBe(
          "secrets \"s\" is forbidden: ValidatingAdmissionPolicy 'secret-size' with binding 'secret-size-binding' denied request: at most 1 keys",
        );
      });
      await create(client, '/api/v1/namespaces/vap/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'small-secret' }, data: { a: 'YQ==' } });
      // Outside the binding's namespaces nothing is checked.
      await create(client, '/api/v1/namespaces/default/configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'big-elsewhere' },
        data: { a: '1', b: '2', c: '3' },
      });
    });
  });
});
