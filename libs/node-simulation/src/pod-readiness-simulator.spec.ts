import { eventually } from '@svc/runtime/testing';
import { PodReadinessSimulator } from './pod-readiness-simulator';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';

let env: TestEnvironment;

beforeAll(async () => {
  env = await startTestEnvironment();
});

afterAll(async () => {
  await env?.stop();
});

describe('PodReadinessSimulator', () => {
  it('marks pods Running and Ready with distinct IPs, and follows a change of readiness', async () => {
    const simulator = await PodReadinessSimulator.start(env.client, { namespace: 'default' });
    try {
      const pods = env.client.pods.inNamespace('default');
      for (const name of ['a', 'b']) await pods.create({ metadata: { name }, spec: { containers: [{ name: 'app', image: 'nginx' }] } });
      const ready = await eventually(async () => {
        const items = (await pods.list()).items;
        for (const pod of items) {
          expect(pod.status).toMatchObject({ phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] });
          expect(pod.status?.containerStatuses).toEqual([expect.objectContaining({ name: 'app', ready: true })]);
        }
        expect(items).toHaveLength(2);
        return items;
      });
      expect(new Set(ready.map((p) => p.status?.podIP)).size).toBe(2);

      simulator.setReadiness((pod) => pod.metadata?.name !== 'b');
      await eventually(async () => {
        const b = await pods.get('b');
        expect(b.status?.conditions).toEqual([expect.objectContaining({ type: 'Ready', status: 'False' })]);
        expect(b.status?.podIP).toBe(ready.find((p) => p.metadata?.name === 'b')?.status?.podIP);
      });
    } finally {
      await simulator.stop();
    }
  });
});
