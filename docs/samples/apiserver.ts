/** The test environment's tour (libs/apiserver/README.md), run by test/docs-samples.e2e-spec.ts. */
import { startTestEnvironment } from '@svc/apiserver/testing';

export async function sample(): Promise<string[]> {
  // #region doc
  const env = await startTestEnvironment(); // a real API server on a loopback port, temporary store
  await env.client.configMaps.create({ metadata: { name: 'cfg', namespace: 'default' }, data: { a: '1' } });
  // env.clientConfig for a manager, env.svcconfig (a kubeconfig file) for kubectl
  await env.stop();
  // #endregion
  return [env.url];
}
