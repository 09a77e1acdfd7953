import { ApiClient } from './support/api-client';
import { create, eventually, expectFailure, expectStatus } from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';

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
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec } } }, subresources: { status: {} } }],
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
            { rule: 'self.size >= oldSelf.size', messageExpression: '"size may not shrink from " + string(oldSelf.size)', reason: 'FieldValueForbidden' },
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
      await create(client, gadgets, { apiVersion: 'cel.example.com/v1', kind: 'Gadget', metadata: { name: 'good' }, spec: { minReplicas: 1, maxReplicas: 2, size: 3, name: 'abc' } });
      const res = await client.post(gadgets, { apiVersion: 'cel.example.com/v1', kind: 'Gadget', metadata: { name: 'bad' }, spec: { minReplicas: 3, maxReplicas: 2, size: 1, name: 'A1' } });
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

    it('refuses a CRD whose rule does not compile', async () => {
      const res = await client.post(CRD_PATH, crd('brokens', 'Broken', { type: 'object', 'x-svc-validations': [{ rule: 'self.a ==' }] }));
      expect(expectFailure(res, 422, 'Invalid').message).toContain('compilation failed');
    });
  });
});
