/** The client's tour (libs/client/README.md), run by test/docs-samples.e2e-spec.ts. */
import type { TestEnvironment } from '@svc/apiserver/testing';
import { Client, loadClientConfig } from '@svc/client';
import { isNotFound } from '@svc/machinery';

export async function sample(env: TestEnvironment): Promise<string[]> {
  const seen: string[] = [];
  await env.client.deployments.create({
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'busybox' }] } },
    },
  });
  await env.client.pods.create({
    metadata: { name: 'web-0', namespace: 'default', labels: { app: 'web' } },
    spec: { containers: [{ name: 'web', image: 'busybox' }] },
  });
  const svcconfig = env.svcconfig;
  // #region doc
  // A connection file (kubeconfig format); loadClientConfig({}) reads $KUBECONFIG, else ~/.kube/config.
  // A process with the client flags (--svcconfig, --master, --svc-api-qps, ...) uses Client.fromOptions.
  const client = new Client(await loadClientConfig({ svcconfig }));

  const pods = client.pods.inNamespace('default'); // ResourceClient<Pod>
  const pod = await pods.get('web-0');
  await client.deployments.patch('web', { spec: { replicas: 3 } }, 'merge', { namespace: 'default' });
  await client.configMaps.apply(
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'default', labels: { app: 'web' } }, data: { a: '1' } },
    { fieldManager: 'me', force: true },
  );

  const list = await client.configMaps.listAll({ namespace: 'default', labelSelector: 'app=web' });
  const watch = await client.configMaps.watch({ namespace: 'default', resourceVersion: list.metadata.resourceVersion });
  await client.configMaps.patch('cfg', { data: { b: '2' } }, 'merge', { namespace: 'default' });
  for await (const { type, object } of watch) {
    seen.push(`${type} ${object.metadata?.name}`); // ADDED, MODIFIED, DELETED, BOOKMARK
    watch.stop(); // ends the loop; an ERROR event is thrown as its StatusError (410 Expired: list again)
  }

  // Custom resources by group, version and plural, or by kind once it is in the client's scheme.
  const widgets = client.dynamic({ group: 'example.com', version: 'v1', resource: 'widgets', namespaced: true });
  const deployments = client.forKind('apps/v1', 'Deployment');

  await pods.patchStatus('web-0', { status: { phase: 'Running' } }); // the status subresource
  const { resources } = await client.discoverResources(); // every served type, custom ones too
  const names = await client.secrets.metadataOnly().list({ namespace: 'default' }); // no data
  try {
    await client.configMaps.get('missing', { namespace: 'default' });
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  // #endregion
  seen.push(
    `pod ${pod.metadata?.name}`,
    `widgets ${widgets.info.resource}`,
    `deployment ${(await deployments.get('web', { namespace: 'default' })).metadata?.name}`,
  );
  seen.push(`resources ${resources.length > 30}`, `secrets ${names.kind}`);
  client.close();
  return seen;
}
