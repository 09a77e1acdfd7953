import { startTestEnvironment } from './test-environment';

describe('startTestEnvironment', () => {
  it('serves the resource interface in-process on a temporary store', async () => {
    const env = await startTestEnvironment();
    try {
      const created = await env.client.configMaps.create({ metadata: { name: 'a', namespace: 'default' }, data: { k: 'v' } });
      expect(created.metadata?.resourceVersion).toBeTruthy();
      const got = await env.client.configMaps.inNamespace('default').get('a');
      expect(got.data).toEqual({ k: 'v' });
      expect(env.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await env.stop();
    }
  });
});
