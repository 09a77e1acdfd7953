/** The built-in controllers beside the test environment (libs/controllers/README.md), run by test/docs-samples.e2e-spec.ts. */
import { startTestEnvironment } from '@svc/apiserver/testing';
import { eventually } from '@svc/informers/testing';

export async function sample(): Promise<string[]> {
  // #region doc
  const env = await startTestEnvironment({ controllers: ['garbagecollector', 'namespace', 'deployment', 'replicaset'] });
  // owner references are honoured, namespaces finish deleting, Deployments make ReplicaSets and Pods
  const labels = { app: 'web' };
  await env.client.deployments.create({
    metadata: { name: 'web', namespace: 'default' },
    spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'busybox' }] } } },
  });
  const pods = await eventually(async () => {
    const list = await env.client.pods.list({ namespace: 'default', labelSelector: 'app=web' });
    if (list.items.length !== 2) throw new Error(`${list.items.length} pods so far`);
    return list.items;
  }, 30_000);
  await env.stop();
  // #endregion
  return pods.map((pod) => pod.metadata!.ownerReferences![0].kind);
}
