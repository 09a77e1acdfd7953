import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { BUILTIN_RESOURCES } from '@svc/client';
import { eventually } from '@svc/runtime/testing';
import { Manager } from '@svc/runtime';
import { PodGarbageCollector, PodGcOptions } from './pod-garbage-collector';

let env: TestEnvironment;
let manager: Manager;

const silent = { info: () => undefined, error: () => undefined };

beforeAll(async () => {
  env = await startTestEnvironment();
  manager = new Manager({ clientConfig: env.clientConfig, logger: silent });
  manager.informerFor(BUILTIN_RESOURCES.pods);
  manager.informerFor(BUILTIN_RESOURCES.nodes);
  await manager.start();
}, 60_000);

afterAll(async () => {
  await manager?.stop();
  await env?.stop();
});

/** A collector whose passes are run by hand over the manager's caches. */
function collector(threshold: number, quarantineMs = 0): { collect(): Promise<void> } {
  const gc = new PodGarbageCollector(env.client, new PodGcOptions(threshold, undefined, quarantineMs));
  return { collect: () => gc.collect(manager.cache) };
}

async function pod(namespace: string, name: string, nodeName?: string, phase?: 'Succeeded' | 'Failed'): Promise<void> {
  await env.client.pods.create({ metadata: { name, namespace }, spec: { containers: [{ name: 'c', image: 'nginx' }], nodeName } });
  if (phase) await env.client.pods.patchStatus(name, { status: { phase } }, 'merge', { namespace });
}

const names = async (namespace: string) => (await env.client.pods.list({ namespace })).items.map((p) => p.metadata?.name).sort();

describe('the pod garbage collector', () => {
  it('deletes the oldest finished pods beyond the threshold, and no running ones', async () => {
    await env.client.namespaces.create({ metadata: { name: 'finished' } });
    await env.client.nodes.create({ metadata: { name: 'here' } });
    for (let i = 1; i <= 4; i++) {
      await pod('finished', `done-${i}`, 'here', i % 2 ? 'Succeeded' : 'Failed');
      // Creation times are kept to the second.
      await new Promise((resolve) => setTimeout(resolve, 1_050));
    }
    await pod('finished', 'running', 'here');
    await eventually(async () => expect(manager.cache.list(BUILTIN_RESOURCES.pods, { namespace: 'finished' })).toHaveLength(5), 5_000);
    await collector(1).collect();
    // Finished pods on this namespace's node: 4; the threshold counts every namespace, none other has any.
    await eventually(async () => expect(await names('finished')).toEqual(['done-4', 'running']), 5_000);
    await collector(0).collect();
    expect(await names('finished')).toEqual(['done-4', 'running']);
  }, 30_000);

  it('deletes the pods of a node that is gone, after its quarantine, marking them Failed first', async () => {
    await env.client.namespaces.create({ metadata: { name: 'orphans' } });
    await pod('orphans', 'lost', 'vanished');
    await env.client.pods.patch('lost', { metadata: { finalizers: ['example.com/inspect'] } }, 'merge', { namespace: 'orphans' });
    await pod('orphans', 'unbound');
    await eventually(async () => expect(manager.cache.list(BUILTIN_RESOURCES.pods, { namespace: 'orphans' })).toHaveLength(2), 5_000);
    const gc = collector(0, 300);
    await gc.collect();
    expect((await env.client.pods.get('lost', { namespace: 'orphans' })).metadata?.deletionTimestamp).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 400));
    await gc.collect();
    const lost = await env.client.pods.get('lost', { namespace: 'orphans' });
    expect(lost.metadata?.deletionTimestamp).toBeDefined();
    expect(lost.status?.phase).toBe('Failed');
    expect(lost.status?.conditions?.find((c) => c.type === 'DisruptionTarget')).toMatchObject({
      reason: 'DeletionByPodGC',
      message: 'PodGC: node no longer exists',
    });
    expect((await env.client.pods.get('unbound', { namespace: 'orphans' })).metadata?.deletionTimestamp).toBeUndefined();
  });
});
