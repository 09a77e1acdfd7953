import { Type } from '@sinclair/typebox';
import { isStatusError } from '@svc/machinery';
import { defineResource, installCustomResources } from '@svc/runtime';
import { eventually } from '@svc/runtime/testing';
import { startTestEnvironment, type TestEnvironment } from './test-environment';

// The built-in controllers in the test environment's process: an operator's test relies on owner
// references and namespace deletion without a controller manager of its own.

const greetings = defineResource({
  group: 'env.example.com',
  kind: 'Greeting',
  storage: 'v1',
  versions: { v1: { spec: Type.Object({ message: Type.String() }) } },
});

async function gone(read: () => Promise<unknown>): Promise<void> {
  try {
    await read();
  } catch (error) {
    if (isStatusError(error) && error.code === 404) return;
    throw error;
  }
  throw new Error('still there');
}

describe('startTestEnvironment with built-in controllers', () => {
  let env: TestEnvironment;

  beforeAll(async () => {
    env = await startTestEnvironment({ controllers: ['garbagecollector', 'namespace', 'deployment', 'replicaset'] });
    await installCustomResources(env.client, [greetings]);
  });

  afterAll(async () => {
    await env?.stop();
  });

  it("collects an operator's objects once their owner is deleted", async () => {
    const owner = await env.client.resource(greetings.resource).create({ metadata: { name: 'hello', namespace: 'default' }, spec: { message: 'hi' } });
    const ownerReferences = [{ apiVersion: 'env.example.com/v1', kind: 'Greeting', name: 'hello', uid: owner.metadata!.uid!, controller: true }];
    for (const name of ['hello-1', 'hello-2']) {
      await env.client.configMaps.create({ metadata: { name, namespace: 'default', ownerReferences }, data: { message: 'hi' } });
    }
    await env.client.resource(greetings.resource).inNamespace('default').delete('hello');
    await eventually(() => gone(() => env.client.configMaps.inNamespace('default').get('hello-1')), 20_000, 100);
    await eventually(() => gone(() => env.client.configMaps.inNamespace('default').get('hello-2')), 20_000, 100);
  });

  it('finishes deleting a namespace: its objects, custom ones included, are removed, then the namespace', async () => {
    await env.client.namespaces.create({ metadata: { name: 'doomed' } });
    await env.client.configMaps.create({ metadata: { name: 'c', namespace: 'doomed' } });
    await env.client.resource(greetings.resource).create({ metadata: { name: 'g', namespace: 'doomed' }, spec: { message: 'bye' } });
    await env.client.namespaces.delete('doomed');
    await eventually(() => gone(() => env.client.namespaces.get('doomed')), 30_000, 100);
    expect((await env.client.configMaps.inNamespace('doomed').list()).items).toEqual([]);
    expect((await env.client.resource(greetings.resource).inNamespace('doomed').list()).items).toEqual([]);
  });

  it('runs deployments: a Deployment gets a ReplicaSet, which creates its Pods', async () => {
    const labels = { app: 'web' };
    await env.client.deployments.create({
      metadata: { name: 'web', namespace: 'default' },
      spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    await eventually(
      async () => {
        const pods = await env.client.pods.inNamespace('default').list({ labelSelector: 'app=web' });
        expect(pods.items).toHaveLength(2);
      },
      20_000,
      100,
    );
  });

  it('refuses a controller name it does not know, naming it', async () => {
    await expect(startTestEnvironment({ controllers: ['garbagecollector', 'jobs'] })).rejects.toThrow(/unknown controllers jobs/);
  });
});
