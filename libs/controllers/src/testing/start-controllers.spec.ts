import 'reflect-metadata';
import { eventually } from '@svc/runtime/testing';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { BUILT_IN_CONTROLLERS } from '../built-in-controllers';
import { startControllers } from './start-controllers';

let env: TestEnvironment;

beforeAll(async () => {
  env = await startTestEnvironment();
});

afterAll(async () => {
  await env?.stop();
});

describe('startControllers', () => {
  it('runs the built-in controllers through the process module, with workers from their flags', async () => {
    const running = await startControllers(env, BUILT_IN_CONTROLLERS, ['--concurrent-replicaset-syncs=3', '--concurrent-deployment-syncs=2']);
    try {
      expect(running.manager.isLeader()).toBe(true);
      const workers = Object.fromEntries(running.manager.getControllers().map((c) => [c.name, c.concurrency]));
      expect(workers).toMatchObject({ replicaset: 3, deployment: 2, namespace: 10, endpoints: 5 });
      // One watch per resource: the garbage collector shares the full caches the other controllers
      // keep (Secrets: the quota controller's), and keeps metadata only of the rest (LimitRanges).
      await eventually(() => expect(running.manager.informers.keys()).toContain('v1/limitranges#metadata'), 30_000);
      const keys = running.manager.informers.keys();
      expect(keys).toEqual(
        expect.arrayContaining(['v1/pods', 'apps/v1/replicasets', 'apps/v1/deployments', 'v1/services', 'v1/endpoints', 'v1/namespaces', 'v1/secrets']),
      );
      expect(new Set(keys.map((k) => k.replace('#metadata', ''))).size).toBe(keys.length);
    } finally {
      await running.stop();
    }
  }, 60_000);
});
