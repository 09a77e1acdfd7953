import { FakeResourceServer } from './testing/fake-resource-server';
import { silentInformerLogger } from './logger';
import { informerKey, SharedInformerFactory } from './shared-informer-factory';
import { eventually } from './testing/eventually';
import { pod, type TestPod } from './testing/objects';

function newFactory(): SharedInformerFactory {
  return new SharedInformerFactory({
    logger: silentInformerLogger,
    informerDefaults: { backoff: { initialMs: 4, maxMs: 20 }, watchLivenessTimeoutMs: 0 },
  });
}

describe('SharedInformerFactory', () => {
  let factory: SharedInformerFactory;
  afterEach(async () => {
    await factory.shutdown();
  });

  it('hands out one informer per resource however many controllers ask, and one watch for it', async () => {
    factory = newFactory();
    const pods = new FakeResourceServer<TestPod>();
    pods.create(pod('ns', 'a'));
    let created = 0;
    const lw = () => {
      created++;
      return pods.listerWatcher();
    };
    const first = factory.informerFor<TestPod>('v1/pods', lw);
    const second = factory.informerFor<TestPod>({ resource: 'v1/pods' }, lw);
    expect(second).toBe(first);
    expect(created).toBe(1);
    const inNamespace = factory.informerFor<TestPod>({ resource: 'v1/pods', namespace: 'ns' }, () => pods.listerWatcher({ namespace: 'ns' }));
    expect(inNamespace).not.toBe(first);
    expect(factory.keys()).toEqual(['v1/pods', 'v1/pods namespace=ns']);

    factory.start();
    await expect(factory.waitForCacheSync(2_000)).resolves.toEqual({ 'v1/pods': true, 'v1/pods namespace=ns': true });
    await eventually(() => expect(pods.openWatches).toBe(2));
    expect(pods.listRequests).toHaveLength(2);
    expect(factory.health()).toEqual([
      { key: 'v1/pods', synced: true, healthy: true },
      { key: 'v1/pods namespace=ns', synced: true, healthy: true },
    ]);
  });

  it('adds indexers a later caller asks for to the shared informer', () => {
    factory = newFactory();
    const pods = new FakeResourceServer<TestPod>();
    const informer = factory.informerFor<TestPod>('v1/pods', () => pods.listerWatcher(), { indexers: { byNode: () => [] } });
    factory.informerFor<TestPod>('v1/pods', () => pods.listerWatcher(), { indexers: { byNode: () => [], byImage: () => [] } });
    expect(informer.indexer.indexNames().sort()).toEqual(['byImage', 'byNode', 'namespace']);
  });

  it('starts an informer requested while running at once, and stopping one frees its cache', async () => {
    factory = newFactory();
    const pods = new FakeResourceServer<TestPod>();
    const nodes = new FakeResourceServer<TestPod>();
    nodes.create({ metadata: { name: 'n1' } });
    factory.informerFor<TestPod>('v1/pods', () => pods.listerWatcher());
    factory.start();
    await factory.waitForCacheSync();

    const nodeInformer = factory.informerFor<TestPod>('v1/nodes', () => nodes.listerWatcher());
    await expect(nodeInformer.whenSynced(2_000)).resolves.toBe(true);
    expect(nodeInformer.lister().get('n1')?.metadata.name).toBe('n1');
    await eventually(() => expect(nodes.openWatches).toBe(1));

    await expect(factory.stopInformer('v1/nodes')).resolves.toBe(true);
    await expect(factory.stopInformer('v1/nodes')).resolves.toBe(false);
    expect(nodeInformer.isStopped).toBe(true);
    expect(nodeInformer.indexer.size).toBe(0);
    expect(nodes.openWatches).toBe(0);
    expect(factory.keys()).toEqual(['v1/pods']);

    // Asked for again, it is a new informer with a fresh cache.
    const again = factory.informerFor<TestPod>('v1/nodes', () => nodes.listerWatcher());
    expect(again).not.toBe(nodeInformer);
    await expect(again.whenSynced(2_000)).resolves.toBe(true);
    expect(again.indexer.size).toBe(1);
  });

  it('reports an informer whose server is unreachable as unhealthy with its error', async () => {
    factory = newFactory();
    const pods = new FakeResourceServer<TestPod>();
    factory.informerFor<TestPod>('v1/pods', () => pods.listerWatcher());
    factory.start();
    await factory.waitForCacheSync();
    pods.setDown(true);
    await eventually(() => expect(factory.health()[0]).toMatchObject({ key: 'v1/pods', synced: true, healthy: false, lastError: expect.any(Error) }));
    pods.setDown(false);
    await eventually(() => expect(factory.health()[0]).toEqual({ key: 'v1/pods', synced: true, healthy: true }));
  });

  it('stops everything on shutdown and refuses new requests', async () => {
    factory = newFactory();
    const pods = new FakeResourceServer<TestPod>();
    const informer = factory.informerFor<TestPod>('v1/pods', () => pods.listerWatcher());
    factory.start();
    await factory.waitForCacheSync();
    await factory.shutdown();
    expect(informer.isStopped).toBe(true);
    expect(factory.keys()).toEqual([]);
    expect(() => factory.informerFor<TestPod>('v1/pods', () => pods.listerWatcher())).toThrow(/shut down/);
  });

  it('keys resources by every part that changes what is watched', () => {
    factory = newFactory();
    expect(informerKey('apps/v1/deployments')).toBe('apps/v1/deployments');
    expect(informerKey({ resource: 'v1/pods', namespace: 'a', labelSelector: 'app=x', fieldSelector: 'spec.nodeName=n1' })).toBe(
      'v1/pods namespace=a labels=app=x fields=spec.nodeName=n1',
    );
    expect(informerKey({ resource: 'v1/pods', namespace: '' })).toBe('v1/pods');
  });
});
