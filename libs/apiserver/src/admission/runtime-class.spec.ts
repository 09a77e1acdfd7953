import { startTestEnvironment, type TestEnvironment } from '../testing';
import { adminCall } from '../testing/https-call';

describe('RuntimeClass admission (on by default)', () => {
  let env: TestEnvironment;

  beforeAll(async () => {
    env = await startTestEnvironment();
  });

  afterAll(async () => {
    await env?.stop();
  });

  const createPod = (name: string, spec: Record<string, unknown>) => adminCall(env, 'POST', '/api/v1/namespaces/default/pods', { metadata: { name }, spec });

  it('refuses a pod naming a RuntimeClass, as none exists here, and takes one naming none', async () => {
    const refused = await createPod('sandboxed', { runtimeClassName: 'gvisor', containers: [{ name: 'c', image: 'busybox' }] });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('pods "sandboxed" is forbidden: pod rejected: RuntimeClass "gvisor" not found');
    expect((await createPod('plain', { containers: [{ name: 'c', image: 'busybox' }] })).status).toBe(201);
  });
});
