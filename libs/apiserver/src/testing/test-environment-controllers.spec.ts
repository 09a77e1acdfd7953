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

  it("collects a CronJob's Jobs and a Job's pods through their owner references, and keeps a Job's pods when the delete names no policy", async () => {
    const template = { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' as const } };
    const cronJob = await env.client.cronJobs.create({
      metadata: { name: 'nightly', namespace: 'default' },
      spec: { schedule: '@daily', jobTemplate: { spec: { template } } },
    });
    const ownedBy = (kind: string, apiVersion: string, o: { metadata?: { name?: string; uid?: string } }) => [
      { apiVersion, kind, name: o.metadata!.name!, uid: o.metadata!.uid!, controller: true, blockOwnerDeletion: true },
    ];
    const job = await env.client.jobs.create({
      metadata: { name: 'nightly-1', namespace: 'default', ownerReferences: ownedBy('CronJob', 'batch/v1', cronJob) },
      spec: { template },
    });
    await env.client.pods.create({
      metadata: { name: 'nightly-1-a', namespace: 'default', ownerReferences: ownedBy('Job', 'batch/v1', job) },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    });
    await env.client.cronJobs.inNamespace('default').delete('nightly', { propagationPolicy: 'Background' });
    await eventually(() => gone(() => env.client.jobs.inNamespace('default').get('nightly-1')), 20_000, 100);
    await eventually(() => gone(() => env.client.pods.inNamespace('default').get('nightly-1-a')), 20_000, 100);

    // batch/v1 orphans a Job's pods when the delete names no policy (kubectl asks for Background).
    const kept = await env.client.jobs.create({ metadata: { name: 'kept', namespace: 'default' }, spec: { template } });
    await env.client.pods.create({
      metadata: { name: 'kept-a', namespace: 'default', ownerReferences: ownedBy('Job', 'batch/v1', kept) },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    });
    await env.client.jobs.inNamespace('default').delete('kept');
    await eventually(() => gone(() => env.client.jobs.inNamespace('default').get('kept')), 20_000, 100);
    await eventually(async () => expect((await env.client.pods.inNamespace('default').get('kept-a')).metadata?.ownerReferences).toBeUndefined(), 20_000, 100);
  });

  it('finishes deleting a namespace: its objects, custom ones included, are removed, then the namespace', async () => {
    await env.client.namespaces.create({ metadata: { name: 'doomed' } });
    await env.client.configMaps.create({ metadata: { name: 'c', namespace: 'doomed' } });
    await env.client.resource(greetings.resource).create({ metadata: { name: 'g', namespace: 'doomed' }, spec: { message: 'bye' } });
    // The workload kinds, which the namespace controller finds through discovery like any other.
    const labels = { app: 'w' };
    const template = { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };
    const selector = { matchLabels: labels };
    await env.client.statefulSets.create({ metadata: { name: 's', namespace: 'doomed' }, spec: { selector, serviceName: 's', template } });
    await env.client.daemonSets.create({ metadata: { name: 'd', namespace: 'doomed' }, spec: { selector, template } });
    await env.client.controllerRevisions.create({ metadata: { name: 'd-1', namespace: 'doomed' }, data: {}, revision: 1 });
    await env.client.podTemplates.create({ metadata: { name: 't', namespace: 'doomed' }, template });
    await env.client.jobs.create({ metadata: { name: 'j', namespace: 'doomed' }, spec: { template: { spec: { ...template.spec, restartPolicy: 'Never' } } } });
    await env.client.cronJobs.create({
      metadata: { name: 'cj', namespace: 'doomed' },
      spec: { schedule: '@hourly', jobTemplate: { spec: { template: { spec: { ...template.spec, restartPolicy: 'Never' } } } } },
    });
    await env.client.namespaces.delete('doomed');
    await eventually(() => gone(() => env.client.namespaces.get('doomed')), 30_000, 100);
    expect((await env.client.configMaps.inNamespace('doomed').list()).items).toEqual([]);
    expect((await env.client.resource(greetings.resource).inNamespace('doomed').list()).items).toEqual([]);
    for (const workloads of [
      env.client.statefulSets,
      env.client.daemonSets,
      env.client.controllerRevisions,
      env.client.podTemplates,
      env.client.jobs,
      env.client.cronJobs,
    ]) {
      expect((await workloads.inNamespace('doomed').list()).items).toEqual([]);
    }
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
