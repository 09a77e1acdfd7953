import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configMap, expectCode, key, prefix, take, type ContractTestObject } from '../testing/contract-suite';
import { EmbeddedStorage } from './embedded-storage';

describe('embedded storage backend: group commit', () => {
  let dataDir: string;
  let store: EmbeddedStorage;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-storage-group-'));
    store = EmbeddedStorage.open({ dataDir, compactionIntervalMs: 0 });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('writes of one turn commit together, in revision order, and are seen only once committed', async () => {
    const start = await store.currentRevision();
    const watcher = await store.watch<ContractTestObject>(prefix());
    const writes = Array.from({ length: 20 }, (_, i) => store.create(key(`n${i}`), configMap(`n${i}`)));
    // Accepted, not yet durable: neither readers nor the revision see them.
    expect(await store.currentRevision()).toBe(start);
    expect((await store.list(prefix())).items).toHaveLength(0);
    const created = await Promise.all(writes);
    expect(created.map((o) => Number(o.metadata.resourceVersion))).toEqual(Array.from({ length: 20 }, (_, i) => start + i + 1));
    expect(await store.currentRevision()).toBe(start + 20);
    expect((await take(watcher, 20)).map((e) => e.revision)).toEqual(Array.from({ length: 20 }, (_, i) => start + i + 1));
  });

  test('a write checks its preconditions against the pending writes of its batch', async () => {
    const a = await store.create(key('a'), configMap('a', { v: '0' }));
    const rv = a.metadata.resourceVersion!;
    const first = store.update(key('a'), configMap('a', { v: '1' }), { preconditions: { resourceVersion: rv } });
    const second = expectCode(store.update(key('a'), configMap('a', { v: '2' }), { preconditions: { resourceVersion: rv } }), 'Conflict');
    const again = expectCode(store.create(key('a'), configMap('a')), 'KeyExists');
    const removed = store.delete(key('a'));
    const recreated = store.create(key('a'), configMap('a', { v: '3' }));
    await first;
    await second;
    await again;
    await removed;
    expect((await recreated).data).toEqual({ v: '3' });
    expect((await store.get<ContractTestObject>(key('a'))).data).toEqual({ v: '3' });
  });

  test('concurrent read-modify-write loops on one key all land', async () => {
    await store.create(key('counter'), configMap('counter', { n: '0' }));
    await Promise.all(
      Array.from({ length: 10 }, () =>
        store.guaranteedUpdate<ContractTestObject>(key('counter'), (current) => ({
          ...current!,
          data: { n: String(Number(current!.data?.n ?? 0) + 1) },
        })),
      ),
    );
    expect((await store.get<ContractTestObject>(key('counter'))).data).toEqual({ n: '10' });
  });

  test('writes accepted before close are committed', async () => {
    const pending = store.create(key('late'), configMap('late'));
    await store.close();
    await pending;
    const reopened = EmbeddedStorage.open({ dataDir, compactionIntervalMs: 0 });
    try {
      expect((await reopened.get<ContractTestObject>(key('late'))).metadata.name).toBe('late');
    } finally {
      await reopened.close();
    }
  });
});
