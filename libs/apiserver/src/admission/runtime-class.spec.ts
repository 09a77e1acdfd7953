import { startTestEnvironment, type TestEnvironment } from '../testing';
import { adminCall } from '../testing/https-call';

describe('RuntimeClass admission (on by default)', () => {
  let env: TestEnvironment;

  beforeAll(async () => {
    env = await startTestEnvironment();
    const made = await adminCall(env, 'POST', '/apis/node.k8s.io/v1/runtimeclasses', {
      apiVersion: 'node.k8s.io/v1',
      kind: 'RuntimeClass',
      metadata: { name: 'sandboxed' },
      handler: 'runsc',
      overhead: { podFixed: { cpu: '250m', memory: '64Mi' } },
      scheduling: { nodeSelector: { 'sandbox.example/runtime': 'runsc' }, tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }] },
    });
    expect(made.status).toBe(201);
  });

  afterAll(async () => {
    await env?.stop();
  });

  const createPod = (name: string, spec: Record<string, unknown>) => adminCall(env, 'POST', '/api/v1/namespaces/default/pods', { metadata: { name }, spec });
  const containers = [{ name: 'c', image: 'busybox' }];

  it("refuses a pod naming a RuntimeClass that does not exist, in Kubernetes' words, and takes one naming none", async () => {
    const refused = await createPod('gvisor', { runtimeClassName: 'gvisor', containers });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('pods "gvisor" is forbidden: pod rejected: RuntimeClass "gvisor" not found');
    expect((await createPod('plain', { containers })).status).toBe(201);
  });

  it("gives a pod its class's overhead, nodeSelector and tolerations", async () => {
    const made = await createPod('in-class', { runtimeClassName: 'sandboxed', nodeSelector: { zone: 'a' }, containers });
    expect(made.status).toBe(201);
    expect(made.body.spec).toMatchObject({
      overhead: { cpu: '250m', memory: '64Mi' },
      nodeSelector: { zone: 'a', 'sandbox.example/runtime': 'runsc' },
      tolerations: expect.arrayContaining([{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }]),
    });
  });

  it('refuses a pod whose own overhead or nodeSelector conflicts with its class, and an overhead no class sets', async () => {
    const overhead = await createPod('own-overhead', { runtimeClassName: 'sandboxed', overhead: { cpu: '1' }, containers });
    expect(overhead.status).toBe(403);
    expect(overhead.body.message).toBe(`pods "own-overhead" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead`);
    const selector = await createPod('elsewhere', { runtimeClassName: 'sandboxed', nodeSelector: { 'sandbox.example/runtime': 'kata' }, containers });
    expect(selector.status).toBe(403);
    expect(selector.body.message).toBe(
      'pods "elsewhere" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox.example/runtime] = runsc; pod.spec.nodeSelector[sandbox.example/runtime] = kata',
    );
    const classless = await createPod('classless', { overhead: { cpu: '1' }, containers });
    expect(classless.status).toBe(403);
    expect(classless.body.message).toBe('pods "classless" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
  });

  it("checks a class: the handler a DNS label that cannot change, the overhead's amounts", async () => {
    const bad = await adminCall(env, 'POST', '/apis/node.k8s.io/v1/runtimeclasses', {
      metadata: { name: 'bad' },
      handler: 'Not_A_Label',
      overhead: { podFixed: { cpu: '-1' } },
    });
    expect(bad.status).toBe(422);
    const causes = ((bad.body.details as { causes: Array<{ field: string; message: string }> }).causes ?? []).map((c) => `${c.field}: ${c.message}`);
    expect(causes).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^handler: Invalid value: "Not_A_Label": a lowercase RFC 1123 label must consist of/),
        'overhead.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0',
      ]),
    );
    const changed = await adminCall(
      env,
      'PATCH',
      '/apis/node.k8s.io/v1/runtimeclasses/sandboxed',
      { handler: 'kata' },
      { 'Content-Type': 'application/merge-patch+json' },
    );
    expect(changed.status).toBe(422);
    expect(changed.body.message).toBe('RuntimeClass.node.k8s.io "sandboxed" is invalid: handler: Invalid value: "kata": field is immutable');
  });

  it("is listed with kubectl's columns", async () => {
    const table = await adminCall(env, 'GET', '/apis/node.k8s.io/v1/runtimeclasses', undefined, { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    const columns = (table.body.columnDefinitions as Array<{ name: string }>).map((c) => c.name);
    expect(columns).toEqual(['Name', 'Handler', 'Age']);
  });
});
