import 'reflect-metadata';
import type { Pod, ReplicationController } from '@svc/api';
import { eventually } from '@svc/runtime/testing';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { startControllers, type RunningControllers } from '../testing/start-controllers';
import { replicationControllerController } from './index';

let env: TestEnvironment;
let running: RunningControllers;

beforeAll(async () => {
  env = await startTestEnvironment();
  running = await startControllers(env, [replicationControllerController]);
  await env.client.namespaces.create({ metadata: { name: 'rc-test' } });
});

afterAll(async () => {
  await running?.stop();
  await env?.stop();
});

const ns = 'rc-test';

async function podsOf(rc: ReplicationController): Promise<Pod[]> {
  const list = await env.client.pods.listAll({ namespace: ns });
  return list.items.filter((p) => !p.metadata?.deletionTimestamp && p.metadata?.ownerReferences?.some((r) => r.controller && r.uid === rc.metadata!.uid));
}

describe('the replication controller', () => {
  it('keeps spec.replicas pods of a ReplicationController, owned by it, and reports them in its status', async () => {
    const rc = await env.client.replicationControllers.create(
      {
        metadata: { name: 'legacy' },
        // No selector: it defaults to the template's labels, as do the controller's own labels.
        spec: { replicas: 3, template: { metadata: { labels: { app: 'legacy' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
      },
      { namespace: ns },
    );
    expect(rc.spec?.selector).toEqual({ app: 'legacy' });
    expect(rc.metadata?.labels).toEqual({ app: 'legacy' });
    expect(rc.status).toEqual({ replicas: 0 });
    await eventually(async () => expect(await podsOf(rc)).toHaveLength(3));
    const [pod] = await podsOf(rc);
    expect(pod.metadata?.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'ReplicationController', name: 'legacy', uid: rc.metadata!.uid, controller: true, blockOwnerDeletion: true },
    ]);
    expect(pod.metadata?.generateName).toBe('legacy-');
    await eventually(async () => {
      const status = (await env.client.replicationControllers.get('legacy', { namespace: ns })).status;
      expect(status).toMatchObject({ replicas: 3, fullyLabeledReplicas: 3, observedGeneration: 1 });
      expect(status).not.toHaveProperty('terminatingReplicas');
    });
  });

  it('scales through the scale subresource, and adopts a matching orphan', async () => {
    await env.client.pods.create(
      { metadata: { name: 'stray', labels: { app: 'scaled' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      { namespace: ns },
    );
    const rc = await env.client.replicationControllers.create(
      {
        metadata: { name: 'scaled' },
        spec: {
          replicas: 2,
          selector: { app: 'scaled' },
          template: { metadata: { labels: { app: 'scaled' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
        },
      },
      { namespace: ns },
    );
    await eventually(async () => {
      const pods = await podsOf(rc);
      expect(pods).toHaveLength(2);
      expect(pods.map((p) => p.metadata?.name)).toContain('stray');
    });
    const scale = await env.client.replicationControllers.getScale('scaled', { namespace: ns });
    expect(scale.status).toMatchObject({ selector: 'app=scaled' });
    await env.client.replicationControllers.patch('scaled', { spec: { replicas: 0 } }, 'merge', { namespace: ns });
    await eventually(async () => expect(await podsOf(rc)).toHaveLength(0));
  });
});
