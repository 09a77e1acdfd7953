import type { Binding, Pod } from '@svc/api';
import { isStatusError, type Status } from '@svc/machinery';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';

// A pod's `binding` subresource, through the server as the scheduler reaches it: a POST of a Binding.

let env: TestEnvironment;

beforeAll(async () => {
  env = await startTestEnvironment();
}, 60_000);

afterAll(async () => {
  await env?.stop();
});

const pods = () => env.client.pods.inNamespace('default');

async function pod(name: string, extra: Partial<Pod['spec']> = {}): Promise<Pod> {
  return pods().create({ metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...extra } });
}

function binding(name: string, node: string, extra: Partial<Binding> = {}): Binding {
  return { apiVersion: 'v1', kind: 'Binding', metadata: { name, ...(extra.metadata ?? {}) }, target: { kind: 'Node', name: node, ...(extra.target ?? {}) } };
}

async function failure(promise: Promise<unknown>): Promise<Status> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isStatusError(error)) throw new Error(`expected a Status error, got ${String(error)}`);
  return error.status;
}

describe('pods/binding', () => {
  it('is the only way to a node: an update of the pod that sets its node is refused, as any spec change but images', async () => {
    await pod('rebind');
    const refused = await failure(pods().patch('rebind', { spec: { nodeName: 'n9' } }, 'merge'));
    expect(refused).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(refused.message).toContain('spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`');
    const reimaged = await pods().patch('rebind', { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } }, 'strategic');
    expect(reimaged.spec.containers[0].image).toBe('nginx:2');
    expect(reimaged.spec.nodeName).toBeUndefined();
  });

  it('binds an unbound pod: nodeName, the annotations and PodScheduled=True; the answer is a Success Status', async () => {
    await pod('a');
    const answer = await pods().createSubresource('a', 'binding', binding('a', 'n1', { metadata: { name: 'a', annotations: { 'scheduled-by': 'test' } } }));
    expect(answer).toMatchObject({ kind: 'Status', status: 'Success', code: 201 });
    const bound = await pods().get('a');
    expect(bound.spec.nodeName).toBe('n1');
    expect(bound.metadata?.annotations).toEqual({ 'scheduled-by': 'test' });
    expect(bound.status?.conditions).toEqual([expect.objectContaining({ type: 'PodScheduled', status: 'True' })]);
  });

  it('answers 409 for a pod already bound, naming its node, and leaves it as it was', async () => {
    const before = await pods().get('a');
    const status = await failure(pods().createSubresource('a', 'binding', binding('a', 'n2')));
    expect(status).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message: 'Operation cannot be fulfilled on pods/binding "a": pod a is already assigned to node "n1"',
    });
    expect((await pods().get('a')).metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
  });

  it('keeps a PodScheduled=False condition in place and turns it True', async () => {
    await pod('b');
    await pods().patchStatus('b', {
      status: { conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/0 nodes are available.' }] },
    });
    await pods().createSubresource('b', 'binding', binding('b', 'n1'));
    const [condition] = (await pods().get('b')).status?.conditions ?? [];
    expect(condition.status).toBe('True');
    expect(condition.reason).toBeUndefined();
    expect(condition.lastTransitionTime).toMatch(/Z$/);
  });

  it('refuses bodies that are not a Binding for this pod', async () => {
    await pod('c');
    expect(await failure(pods().createSubresource('c', 'binding', binding('other', 'n1')))).toMatchObject({ code: 400 });
    expect(await failure(pods().createSubresource('c', 'binding', { ...binding('c', 'n1'), kind: 'Pod' }))).toMatchObject({ code: 400 });
    const invalid = await failure(pods().createSubresource('c', 'binding', binding('c', '', { target: { kind: 'Service' } })));
    expect(invalid).toMatchObject({ code: 422, reason: 'Invalid', details: { kind: 'Binding', name: 'c' } });
    expect(invalid.details?.causes?.map((c) => c.field)).toEqual(['target.kind', 'target.name']);
    expect(await failure(pods().createSubresource('c', 'binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'c' } }))).toMatchObject({
      code: 422,
    });
    expect(await failure(pods().createSubresource('missing', 'binding', binding('missing', 'n1')))).toMatchObject({ code: 404 });
    expect((await pods().get('c')).spec.nodeName).toBeUndefined();
  });

  it('honours the uid precondition and refuses a pod being deleted or gated', async () => {
    await pod('d', { terminationGracePeriodSeconds: 30 });
    expect(await failure(pods().createSubresource('d', 'binding', binding('d', 'n1', { metadata: { name: 'd', uid: 'not-its-uid' } })))).toMatchObject({
      code: 409,
    });
    await pod('e', { schedulingGates: [{ name: 'wait' }] });
    expect((await failure(pods().createSubresource('e', 'binding', binding('e', 'n1')))).message).toContain('non-empty .spec.schedulingGates');
    await pods().patch('d', { metadata: { finalizers: ['example.com/hold'] } });
    await pods().delete('d');
    expect((await failure(pods().createSubresource('d', 'binding', binding('d', 'n1')))).message).toContain('is being deleted');
    await pods().patch('d', { metadata: { finalizers: null } });
  });

  it('answers only POST, and discovery lists it as a create of Binding', async () => {
    const get = await failure(env.client.rest.request({ method: 'GET', path: '/api/v1/namespaces/default/pods/c/binding' }));
    expect(get.code).toBe(405);
    const put = await failure(env.client.rest.request({ method: 'PUT', path: '/api/v1/namespaces/default/pods/c/binding', body: binding('c', 'n1') }));
    expect(put.code).toBe(405);
    const discovery = await env.client.rest.request<{ resources: Array<{ name: string; kind: string; verbs: string[] }> }>({ method: 'GET', path: '/api/v1' });
    expect(discovery.resources.find((r) => r.name === 'pods/binding')).toMatchObject({ kind: 'Binding', verbs: ['create'] });
    expect(discovery.resources.find((r) => r.name === 'namespaces/finalize')).toMatchObject({ kind: 'Namespace', verbs: ['update'] });
  });

  it('is a dry run when asked, and leaves the pod unbound', async () => {
    await pods().createSubresource('c', 'binding', binding('c', 'n1'), { dryRun: true });
    expect((await pods().get('c')).spec.nodeName).toBeUndefined();
  });
});
