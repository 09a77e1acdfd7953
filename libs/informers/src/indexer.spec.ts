import { Indexer, NAMESPACE_INDEX } from './indexer';
import { metaNamespaceKey, splitMetaNamespaceKey } from './object-key';
import { pod, type TestPod } from './testing/objects';

const withRv = (p: TestPod, rv: string): TestPod => ({ ...p, metadata: { ...p.metadata, resourceVersion: rv } });

describe('object keys', () => {
  it('are namespace/name, or name for cluster-scoped objects, and split back', () => {
    expect(metaNamespaceKey({ metadata: { namespace: 'a', name: 'x' } })).toBe('a/x');
    expect(metaNamespaceKey({ metadata: { name: 'node-1' } })).toBe('node-1');
    expect(() => metaNamespaceKey({ metadata: {} })).toThrow(/metadata.name/);
    expect(splitMetaNamespaceKey('a/x')).toEqual({ namespace: 'a', name: 'x' });
    expect(splitMetaNamespaceKey('node-1')).toEqual({ namespace: '', name: 'node-1' });
    expect(() => splitMetaNamespaceKey('a/b/c')).toThrow(/unexpected key/);
  });
});

describe('Indexer', () => {
  it('adds, updates, gets, lists and deletes by key', () => {
    const store = new Indexer<TestPod>();
    store.add(pod('a', 'x'));
    store.add(pod('b', 'y'));
    store.update(withRv(pod('a', 'x'), '7'));
    expect(store.size).toBe(2);
    expect(store.getByKey('a/x')?.metadata.resourceVersion).toBe('7');
    expect(store.get(pod('b', 'y'))?.metadata.name).toBe('y');
    expect(store.listKeys().sort()).toEqual(['a/x', 'b/y']);
    store.delete(pod('a', 'x'));
    store.deleteKey('missing');
    expect(store.list().map((p) => p.metadata.name)).toEqual(['y']);
  });

  it('keeps the built-in namespace index in step with adds, moves and deletes', () => {
    const store = new Indexer<TestPod>();
    store.add(pod('a', 'x'));
    store.add(pod('a', 'y'));
    store.add({ metadata: { name: 'cluster-wide' } });
    expect(
      store
        .byIndex(NAMESPACE_INDEX, 'a')
        .map((p) => p.metadata.name)
        .sort(),
    ).toEqual(['x', 'y']);
    expect(store.byIndex(NAMESPACE_INDEX, '').map((p) => p.metadata.name)).toEqual(['cluster-wide']);
    store.deleteKey('a/x');
    expect(store.indexKeys(NAMESPACE_INDEX, 'a')).toEqual(['a/y']);
    store.deleteKey('a/y');
    expect(store.listIndexFuncValues(NAMESPACE_INDEX)).toEqual(['']);
  });

  it('indexes by user functions, given up front or added later over existing objects', () => {
    const store = new Indexer<TestPod>({ indexers: { byNode: (p) => [p.spec?.nodeName ?? ''] } });
    store.add(pod('a', 'x', { spec: { nodeName: 'n1' } }));
    store.add(pod('a', 'y', { spec: { nodeName: 'n2' } }));
    store.add(pod('b', 'z', { spec: { nodeName: 'n1', image: 'nginx' } }));
    expect(store.byIndex('byNode', 'n1').map(metaNamespaceKey).sort()).toEqual(['a/x', 'b/z']);

    store.addIndexers({ byImage: (p) => (p.spec?.image ? [p.spec.image] : []) });
    expect(store.indexKeys('byImage', 'nginx')).toEqual(['b/z']);
    expect(store.listIndexFuncValues('byImage')).toEqual(['nginx']);

    // An update re-files the object under its new values.
    store.update(pod('a', 'x', { spec: { nodeName: 'n2' } }));
    expect(store.indexKeys('byNode', 'n1')).toEqual(['b/z']);
    expect(
      store
        .index('byNode', pod('q', 'q', { spec: { nodeName: 'n2' } }))
        .map(metaNamespaceKey)
        .sort(),
    ).toEqual(['a/x', 'a/y']);
    expect(() => store.addIndexers({ byNode: () => [] })).toThrow(/already exists/);
    expect(() => store.byIndex('nope', 'x')).toThrow(/does not exist/);
    expect(store.indexNames().sort()).toEqual(['byImage', 'byNode', NAMESPACE_INDEX]);
  });

  it('files an object under no value when an index function throws or returns junk', () => {
    const store = new Indexer<TestPod>({
      indexers: {
        // The style from the docs: blows up on objects without a spec.
        byNode: (p) => [(p.spec as { nodeName: string }).nodeName],
      },
    });
    store.add(pod('a', 'no-spec'));
    store.add(pod('a', 'no-node', { spec: {} }));
    store.add(pod('a', 'x', { spec: { nodeName: 'n1' } }));
    expect(store.size).toBe(3);
    expect(store.listIndexFuncValues('byNode')).toEqual(['n1']);
    store.deleteKey('a/no-spec');
    expect(store.size).toBe(2);
  });

  it('replaces its contents and indexes on a relist', () => {
    const store = new Indexer<TestPod>({ indexers: { byNode: (p) => [p.spec?.nodeName ?? ''] } });
    store.add(pod('a', 'x', { spec: { nodeName: 'n1' } }));
    store.replace([pod('b', 'y', { spec: { nodeName: 'n2' } })], '42');
    expect(store.listKeys()).toEqual(['b/y']);
    expect(store.listIndexFuncValues('byNode')).toEqual(['n2']);
    expect(store.byIndex(NAMESPACE_INDEX, 'a')).toEqual([]);
    expect(store.resourceVersion).toBe('42');
  });

  it('freezes what it stores, deeply, unless told not to', () => {
    const store = new Indexer<TestPod>();
    const p = pod('a', 'x', { spec: { nodeName: 'n1' } });
    store.add(p);
    expect(() => {
      (store.getByKey('a/x') as TestPod).spec!.nodeName = 'n2';
    }).toThrow(TypeError);
    const loose = new Indexer<TestPod>({ freezeObjects: false });
    loose.add(pod('a', 'x'));
    expect(Object.isFrozen(loose.getByKey('a/x'))).toBe(false);
  });

  describe('revision tracking', () => {
    it('moves forward only, and waits resolve once the revision is reached', async () => {
      const store = new Indexer<TestPod>();
      store.observeResourceVersion('10');
      store.observeResourceVersion('9');
      expect(store.resourceVersion).toBe('10');
      await expect(store.waitForResourceVersion('10', 10)).resolves.toBe(true);
      await expect(store.waitForResourceVersion('5', 10)).resolves.toBe(true);
      const waiting = store.waitForResourceVersion('12', 5_000);
      store.observeResourceVersion('11');
      expect(store.pendingWaits).toBe(1);
      store.observeResourceVersion('13');
      await expect(waiting).resolves.toBe(true);
      expect(store.pendingWaits).toBe(0);
    });

    it('compares revisions as numbers, not strings', async () => {
      const store = new Indexer<TestPod>();
      store.observeResourceVersion('9');
      store.observeResourceVersion('10');
      expect(store.resourceVersion).toBe('10');
      await expect(store.waitForResourceVersion('9', 1)).resolves.toBe(true);
    });

    it('resolves false after the timeout and when the store closes', async () => {
      const store = new Indexer<TestPod>();
      await expect(store.waitForResourceVersion('3', 5)).resolves.toBe(false);
      const waiting = store.waitForResourceVersion('3', 60_000);
      store.close();
      await expect(waiting).resolves.toBe(false);
      await expect(store.waitForResourceVersion('3', 60_000)).resolves.toBe(false);
      expect(store.size).toBe(0);
    });

    it('is reached by a relist at a newer version', async () => {
      const store = new Indexer<TestPod>();
      const waiting = store.waitForResourceVersion('20', 5_000);
      store.replace([], '25');
      await expect(waiting).resolves.toBe(true);
    });

    it('lets a wait for one key resolve when that object reaches the revision', async () => {
      const store = new Indexer<TestPod>();
      store.observeResourceVersion('3');
      store.add(withRv(pod('a', 'x'), '3'));
      const waiting = store.waitForKeyResourceVersion('a/x', '8', 5_000);
      store.add(withRv(pod('a', 'other'), '9')); // a different key: not enough by itself
      expect(store.pendingWaits).toBe(1);
      store.update(withRv(pod('a', 'x'), '8'));
      await expect(waiting).resolves.toBe(true);
      await expect(store.waitForKeyResourceVersion('a/x', '8', 1)).resolves.toBe(true);
      // The store's own revision also satisfies a keyed wait (e.g. the object was deleted).
      const deleted = store.waitForKeyResourceVersion('a/gone', '12', 5_000);
      store.observeResourceVersion('12');
      await expect(deleted).resolves.toBe(true);
    });
  });
});
