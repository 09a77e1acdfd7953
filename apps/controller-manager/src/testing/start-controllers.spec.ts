import 'reflect-metadata';
import { startTestEnvironment, type TestEnvironment } from '@svc/runtime/testing';
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
  it('runs the built-in controllers through the process module, with workers from the flags', async () => {
    const running = await startControllers(env, BUILT_IN_CONTROLLERS, ['--concurrent-replicaset-syncs=3']);
    try {
      expect(running.manager.isLeader()).toBe(true);
      const workers = Object.fromEntries(running.manager.getControllers().map((c) => [c.name, c.concurrency]));
      for (const c of BUILT_IN_CONTROLLERS) {
        for (const name of Object.keys(c.concurrency({} as never))) if (name in workers && name === 'replicaset') expect(workers[name]).toBe(3);
      }
    } finally {
      await running.stop();
    }
  });
});
