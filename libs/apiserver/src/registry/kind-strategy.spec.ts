import { builtinScheme, defineKind, fieldErrors, objectMetaSchema, type ApiObject, type JsonSchema } from '@svc/api';
import { isStatusError } from '@svc/machinery';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';

// A kind with rules of its own, added by its definition alone: no generic file of the server names it.

const GadgetSchema: JsonSchema = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: objectMetaSchema('dns1123-subdomain'),
    spec: {
      type: 'object',
      properties: {
        serial: { type: 'string' },
        approved: { type: 'boolean' },
        holds: { type: 'array', items: { type: 'string' } },
      },
    },
    status: { type: 'object', properties: { phase: { type: 'string' } } },
  },
};

interface Gadget extends ApiObject {
  spec?: { serial?: string; approved?: boolean; holds?: string[] };
  status?: { phase?: string };
}

const gadgetDefinition = defineKind({
  group: 'gadgets.example.com',
  version: 'v1',
  kind: 'Gadget',
  resource: 'gadgets',
  namespaced: true,
  subresources: { status: true },
  schema: GadgetSchema,
  strategy: {
    prepareForCreate(gadget) {
      gadget.status = { phase: 'New' };
    },
    validateUpdate(gadget, current) {
      const serial = (gadget as Gadget).spec?.serial;
      return serial === (current as Gadget).spec?.serial ? [] : [fieldErrors.invalid('spec.serial', serial, 'field is immutable')];
    },
    returnDeletedObject: true,
    pendingFinalizers: (gadget) => (gadget as Gadget).spec?.holds ?? [],
    onDeletionMarked(gadget) {
      gadget.status = { phase: 'Retiring' };
    },
    subresources: {
      approve: {
        updateOf: (incoming, current) => ({ ...current, spec: { ...(current as Gadget).spec, approved: (incoming as Gadget).spec?.approved === true } }),
      },
    },
  },
});

let env: TestEnvironment;

beforeAll(async () => {
  const scheme = builtinScheme();
  scheme.register(gadgetDefinition);
  env = await startTestEnvironment({ scheme });
}, 60_000);

afterAll(async () => {
  await env?.stop();
});

const gadgets = () =>
  env.client.dynamic({ group: 'gadgets.example.com', version: 'v1', resource: 'gadgets', namespaced: true, kind: 'Gadget' }).inNamespace('default');

describe('a kind that brings its own strategy', () => {
  it('starts with the status its strategy sets, whatever the client sent', async () => {
    const created = (await gadgets().create({
      apiVersion: 'gadgets.example.com/v1',
      kind: 'Gadget',
      metadata: { name: 'g1' },
      spec: { serial: 'A1' },
      status: { phase: 'Done' },
    })) as Gadget;
    expect(created.status).toEqual({ phase: 'New' });
  });

  it('refuses an update its strategy calls invalid', async () => {
    const current = (await gadgets().get('g1')) as Gadget;
    const error = await gadgets()
      .update({ ...current, spec: { ...current.spec, serial: 'B2' } })
      .catch((e: unknown) => e);
    expect(isStatusError(error) && error.status.code).toBe(422);
  });

  it('serves its own subresource, which changes only what the strategy takes, and lists it in discovery', async () => {
    const current = (await gadgets().get('g1')) as Gadget;
    const approved = (await gadgets().updateSubresource(
      { ...current, spec: { serial: 'ignored', approved: true }, metadata: { ...current.metadata, labels: { x: 'y' } } },
      'approve',
    )) as Gadget;
    expect(approved.spec).toEqual({ serial: 'A1', approved: true });
    expect(approved.metadata?.labels).toBeUndefined();
    const discovery = await env.client.rest.request<{ resources: Array<{ name: string }> }>({ method: 'GET', path: '/apis/gadgets.example.com/v1' });
    expect(discovery.resources.map((r) => r.name)).toEqual(expect.arrayContaining(['gadgets', 'gadgets/status', 'gadgets/approve']));
  });

  it('is held by what its strategy says and answers a delete with the object', async () => {
    const current = (await gadgets().get('g1')) as Gadget;
    await gadgets().update({ ...current, spec: { ...current.spec, holds: ['audit'] } });
    const marked = (await gadgets().delete('g1')) as Gadget;
    expect(marked.kind).toBe('Gadget');
    expect(marked.metadata?.deletionTimestamp).toBeDefined();
    expect(marked.status).toEqual({ phase: 'Retiring' });
    const held = (await gadgets().get('g1')) as Gadget;
    await gadgets().update({ ...held, spec: { ...held.spec, holds: [] } });
    const gone = await gadgets()
      .get('g1')
      .catch((e: unknown) => e);
    expect(isStatusError(gone) && gone.status.code).toBe(404);
  });
});
