import { encodeProtobufObject, isStatusError, type Status } from '@svc/machinery';
import { podDisruptionBudgetDefinition, type Eviction, type Pod, type PodDisruptionBudget } from '@svc/api';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { httpsCall } from '../../../testing/https-call';

// A pod's `eviction` subresource, as kubectl drain reaches it: a POST of a policy/v1 Eviction that
// deletes the pod when its disruption budget allows, and takes one disruption from the budget.

let env: TestEnvironment;

beforeAll(async () => {
  env = await startTestEnvironment();
}, 60_000);

afterAll(async () => {
  await env?.stop();
});

const pods = () => env.client.pods.inNamespace('default');
const budgets = () => env.client.resource<PodDisruptionBudget>(podDisruptionBudgetDefinition).inNamespace('default');

/** A pod on a node, running and ready (what a node agent reports). */
async function runningPod(name: string, app: string, ready = true): Promise<Pod> {
  await pods().create({ metadata: { name, labels: { app } }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'nginx' }] } });
  return pods().patchStatus(name, { status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } });
}

/** A budget with the status the disruption controller would write. */
async function budget(name: string, app: string, status: Partial<NonNullable<PodDisruptionBudget['status']>>, spec: PodDisruptionBudget['spec'] = {}) {
  const created = await budgets().create({ metadata: { name }, spec: { minAvailable: 1, selector: { matchLabels: { app } }, ...spec } });
  return budgets().patchStatus(name, {
    status: { observedGeneration: created.metadata?.generation, disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0, ...status },
  });
}

const eviction = (name: string, deleteOptions?: Eviction['deleteOptions']): Eviction => ({
  apiVersion: 'policy/v1',
  kind: 'Eviction',
  metadata: { name, namespace: 'default' },
  ...(deleteOptions ? { deleteOptions } : {}),
});

const evict = (name: string, deleteOptions?: Eviction['deleteOptions']) => pods().createSubresource(name, 'eviction', eviction(name, deleteOptions));

async function failure(promise: Promise<unknown>): Promise<Status> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isStatusError(error)) throw new Error(`expected a Status error, got ${String(error)}`);
  return error.status;
}

/** A request with a protobuf body, as Kubernetes clients send one, as the administrator. */
function protobufCall(method: string, path: string, body: Buffer) {
  const c = env.clientConfig;
  return httpsCall(env.url, c.ca!, method, path, { 'Content-Type': 'application/vnd.kubernetes.protobuf', Accept: 'application/json' }, body, {
    cert: c.clientCert!,
    key: c.clientKey!,
  });
}

const gone = async (name: string): Promise<boolean> =>
  (
    await pods()
      .get(name)
      .catch(() => undefined)
  )?.metadata?.deletionTimestamp !== undefined ||
  (await pods()
    .get(name)
    .catch(() => undefined)) === undefined;

describe('pods/eviction', () => {
  it('is in discovery as a create of policy/v1 Eviction, which kubectl drain looks for', async () => {
    const resources = (
      await env.client.rest.request<{ resources: Array<{ name: string; group?: string; version?: string; kind: string; verbs: string[] }> }>({
        method: 'GET',
        path: '/api/v1',
      })
    ).resources;
    expect(resources.find((r) => r.name === 'pods/eviction')).toEqual(
      expect.objectContaining({ group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] }),
    );
  });

  it('deletes a pod no budget selects, answering a Success Status', async () => {
    await runningPod('free', 'free');
    expect(await evict('free')).toMatchObject({ kind: 'Status', status: 'Success', code: 201 });
    expect(await gone('free')).toBe(true);
  });

  it('takes one disruption from the budget, then refuses with 429 TooManyRequests naming the budget', async () => {
    await runningPod('web-1', 'web');
    await runningPod('web-2', 'web');
    await budget('web', 'web', { disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2 });
    await evict('web-1');
    expect(await gone('web-1')).toBe(true);
    // Terminating on its node for its grace period, the pod says why it goes.
    const going = await pods().get('web-1');
    expect(going.status?.conditions).toContainEqual(
      expect.objectContaining({ type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' }),
    );
    const charged = await budgets().get('web');
    expect(charged.status).toMatchObject({ disruptionsAllowed: 0, disruptedPods: { 'web-1': expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) } });

    const refused = await failure(evict('web-2'));
    expect(refused).toMatchObject({
      code: 429,
      reason: 'TooManyRequests',
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      details: { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget web needs 1 healthy pods and has 2 currently' }] },
    });
    expect((await pods().get('web-2')).metadata?.deletionTimestamp).toBeUndefined();
  });

  it('refuses while the budget’s status is older than its spec', async () => {
    await runningPod('new-1', 'new');
    await budgets().create({ metadata: { name: 'new' }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'new' } } } });
    const refused = await failure(evict('new-1'));
    expect(refused.code).toBe(429);
    expect(refused.details?.causes?.[0]?.message).toBe('The disruption budget new is still being processed by the server.');
  });

  it('evicts a pod that is not ready without a disruption when the budget says AlwaysAllow, and a pending one at once', async () => {
    await runningPod('sick-1', 'sick', false);
    await budget('sick', 'sick', { disruptionsAllowed: 0 }, { unhealthyPodEvictionPolicy: 'AlwaysAllow' });
    await evict('sick-1');
    expect(await gone('sick-1')).toBe(true);
    expect((await budgets().get('sick')).status?.disruptedPods).toBeUndefined();

    await pods().create({ metadata: { name: 'sick-2', labels: { app: 'sick' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    await evict('sick-2');
    expect(await gone('sick-2')).toBe(true);
  });

  it('changes nothing on a dry run, asked in the query or in the Eviction’s delete options', async () => {
    await runningPod('dry-1', 'dry');
    await budget('dry', 'dry', { disruptionsAllowed: 1, currentHealthy: 1, desiredHealthy: 0, expectedPods: 1 });
    await evict('dry-1', { dryRun: ['All'] });
    await pods().createSubresource('dry-1', 'eviction', eviction('dry-1'), { dryRun: true });
    expect((await pods().get('dry-1')).metadata?.deletionTimestamp).toBeUndefined();
    expect((await pods().get('dry-1')).status?.conditions?.map((c) => c.type)).not.toContain('DisruptionTarget');
    expect((await budgets().get('dry')).status?.disruptionsAllowed).toBe(1);
  });

  it('answers 400 for a name that is not the path’s, 404 for a missing pod, 422 for bad delete options, 500 for two budgets', async () => {
    await runningPod('odd', 'odd');
    expect((await failure(pods().createSubresource('odd', 'eviction', eviction('other')))).code).toBe(400);
    expect((await failure(evict('missing'))).code).toBe(404);
    expect((await failure(evict('odd', { gracePeriodSeconds: -1 }))).code).toBe(422);
    await budget('odd-a', 'odd', { disruptionsAllowed: 1 });
    await budget('odd-b', 'odd', { disruptionsAllowed: 1 });
    const two = await failure(evict('odd'));
    expect(two).toMatchObject({ code: 500, message: expect.stringContaining('more than one PodDisruptionBudget') });
  });

  it('takes an Eviction, and a delete’s options, as Kubernetes clients send them: in protobuf', async () => {
    await runningPod('proto', 'proto');
    const body = Buffer.from(encodeProtobufObject({ ...eviction('proto', { gracePeriodSeconds: 0 }) }));
    const answer = await protobufCall('POST', '/api/v1/namespaces/default/pods/proto/eviction', body);
    expect(answer.status).toBe(201);
    expect(await gone('proto')).toBe(true);

    // kubectl drain --disable-eviction deletes instead, with its DeleteOptions in protobuf too.
    await runningPod('proto-2', 'proto-2');
    const options = Buffer.from(encodeProtobufObject({ apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 }));
    const deleted = await protobufCall('DELETE', '/api/v1/namespaces/default/pods/proto-2', options);
    expect(deleted.status).toBe(200);
    expect(
      (
        await pods()
          .get('proto-2')
          .catch(() => undefined)
      )?.metadata?.deletionTimestamp,
    ).toBeUndefined();
    expect(
      await pods()
        .get('proto-2')
        .catch(() => undefined),
    ).toBeUndefined();
  });
});
