/** The informers' tour (libs/informers/README.md), run by test/docs-samples.e2e-spec.ts. */
import type { Pod } from '@svc/api';
import type { TestEnvironment } from '@svc/apiserver/testing';
import { listerWatcherFor, metaNamespaceKey, RateLimitingQueue, SharedInformerFactory } from '@svc/informers';

export async function sample({ client }: TestEnvironment): Promise<string[]> {
  await client.pods.create({
    metadata: { name: 'web-1', namespace: 'default', labels: { app: 'web' } },
    spec: { containers: [{ name: 'web', image: 'busybox' }] },
  });
  // #region doc
  const queue = new RateLimitingQueue<string>(); // client-go's work queue: each key once, one worker at a time
  const factory = new SharedInformerFactory({ defaultResyncPeriodMs: 12 * 60 * 60 * 1000 });
  const pods = factory.informerFor<Pod>('v1/pods', () => listerWatcherFor(client.pods));
  pods.addEventHandler({
    onAdd: (pod) => queue.add(metaNamespaceKey(pod)),
    onUpdate: (_, pod) => queue.add(metaNamespaceKey(pod)),
    onDelete: (pod) => queue.add(metaNamespaceKey(pod)),
  });
  factory.start();
  await factory.waitForCacheSync();
  const web = pods.lister().namespace('default').list('app=web'); // reads from the cache
  const item = await queue.get(); // { key: 'default/web-1' }; queue.done(key) once handled
  // #endregion
  queue.shutDown();
  await factory.shutdown();
  return [...web.map((pod) => pod.metadata?.name ?? ''), item.shutdown ? '' : item.key];
}
