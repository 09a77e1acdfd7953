// The suite is written for Jest's globals; the testing kit is also compiled with the benchmarks (which
// start etcd clusters through it), whose build has no test runner's types, so they are named here.
/// <reference types="jest" />
import type { ChangeEvent, Storage, StoredObject, StorageWatchEvent, Watcher } from '../storage';
import type { StorageErrorCode } from '../storage-error';

/** Options a test asks of a fresh store; the harness maps them to its backend's configuration. */
export interface ContractStoreOptions {
  compactionIntervalMs?: number;
  tooLargeWaitMs?: number;
  watchBufferLimit?: number;
}

export interface StorageContractHarness {
  /** A fresh, empty store. */
  open(options: ContractStoreOptions): Promise<Storage>;
  /** Removes what `open` created (files, databases) after the stores are closed. */
  dispose?(): Promise<void>;
}

export interface ContractTestObject extends StoredObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; uid?: string; resourceVersion?: string; labels?: Record<string, string> };
  data?: Record<string, string>;
}

/**
 * Registers the storage contract tests for one backend. Pass `skip` (with the reason in the title) to
 * register them as skipped, so that a backend without its server still shows in the test counts.
 */
export function describeStorageContract(title: string, harness: StorageContractHarness, skip = false): void {
  (skip ? describe.skip : describe)(title, () => {
    const opened: Storage[] = [];
    const open = async (options: ContractStoreOptions = {}): Promise<Storage> => {
      const store = await harness.open({ compactionIntervalMs: 0, ...options });
      opened.push(store);
      return store;
    };

    afterEach(async () => {
      await Promise.all(opened.splice(0).map((store) => store.close()));
    });
    afterAll(async () => {
      await harness.dispose?.();
    });

    describe('create, get, update, delete', () => {
      test('create stores the object and sets resourceVersion to the revision of the write', async () => {
        const store = await open();
        const before = await store.currentRevision();
        expect(before).toBeGreaterThanOrEqual(1);
        const input = configMap('a', { x: '1' });
        const created = await store.create(key('a'), input);
        expect(created.metadata.resourceVersion).toBe(String(before + 1));
        expect(input.metadata.resourceVersion).toBeUndefined();
        expect(await store.currentRevision()).toBe(before + 1);
        const read = await store.get<ContractTestObject>(key('a'));
        expect(read).toEqual(created);
        expect(read.data).toEqual({ x: '1' });
      });

      test('create of a present key fails with KeyExists; get of an absent key with KeyNotFound', async () => {
        const store = await open();
        await store.create(key('a'), configMap('a'));
        await expectCode(store.create(key('a'), configMap('a')), 'KeyExists');
        await expectCode(store.get(key('missing')), 'KeyNotFound');
      });

      test('every write takes a new, strictly increasing revision', async () => {
        const store = await open();
        const a = await store.create(key('a'), configMap('a'));
        const b = await store.update(key('a'), configMap('a', { v: '2' }));
        const c = await store.delete<ContractTestObject>(key('a'));
        const d = await store.create(key('a'), configMap('a'));
        const revisions = [a, b, c, d].map((o) => Number(o.metadata?.resourceVersion));
        expect(revisions).toEqual([revisions[0], revisions[0] + 1, revisions[0] + 2, revisions[0] + 3]);
        expect(await store.currentRevision()).toBe(revisions[3]);
      });

      test('update checks the resourceVersion precondition (Conflict) and the uid precondition', async () => {
        const store = await open();
        const created = await store.create(key('a'), configMap('a', { v: '1' }, 'uid-1'));
        const rv = created.metadata.resourceVersion as string;
        const updated = await store.update(key('a'), configMap('a', { v: '2' }, 'uid-1'), {
          preconditions: { resourceVersion: rv, uid: 'uid-1' },
        });
        expect(Number(updated.metadata.resourceVersion)).toBe(Number(rv) + 1);
        await expectCode(store.update(key('a'), configMap('a', { v: '3' }), { preconditions: { resourceVersion: rv } }), 'Conflict');
        await expectCode(store.update(key('a'), configMap('a', { v: '3' }), { preconditions: { uid: 'uid-2' } }), 'InvalidPrecondition');
        await expectCode(store.update(key('missing'), configMap('missing')), 'KeyNotFound');
        expect((await store.get<ContractTestObject>(key('a'))).data).toEqual({ v: '2' });
      });

      test('delete checks uid and resourceVersion preconditions and returns the last state at the deletion revision', async () => {
        const store = await open();
        const created = await store.create(key('a'), configMap('a', { v: '1' }, 'uid-1'));
        await expectCode(store.delete(key('a'), { preconditions: { uid: 'other' } }), 'InvalidPrecondition');
        await expectCode(store.delete(key('a'), { preconditions: { resourceVersion: '1' } }), 'Conflict');
        const deleted = await store.delete<ContractTestObject>(key('a'), {
          preconditions: { uid: 'uid-1', resourceVersion: created.metadata.resourceVersion },
        });
        expect(deleted.data).toEqual({ v: '1' });
        expect(Number(deleted.metadata.resourceVersion)).toBe(Number(created.metadata.resourceVersion) + 1);
        await expectCode(store.get(key('a')), 'KeyNotFound');
        await expectCode(store.delete(key('a')), 'KeyNotFound');
      });

      test('delete with validate deletes the version it validated and keeps the object when validation throws', async () => {
        const store = await open();
        await store.create(key('a'), configMap('a', { v: '1' }));
        await expect(
          store.delete<ContractTestObject>(key('a'), {
            validate: () => {
              throw new Error('has finalizers');
            },
          }),
        ).rejects.toThrow('has finalizers');
        await store.get(key('a'));
        let calls = 0;
        const deleted = await store.delete<ContractTestObject>(key('a'), {
          validate: async (current) => {
            calls += 1;
            // A concurrent writer changes the object after the first validation: validate again.
            if (calls === 1) await store.update(key('a'), { ...current, data: { v: '2' } });
          },
        });
        expect(calls).toBe(2);
        expect(deleted.data).toEqual({ v: '2' });
      });
    });

    describe('object size', () => {
      test('create and update of an object larger than the store takes fail with TooLarge and write nothing', async () => {
        const store = await open();
        const big = 'x'.repeat(1.5 * 1024 * 1024 + 1);
        await expectCode(store.create(key('big'), configMap('big', { v: big })), 'TooLarge');
        await expectCode(store.get(key('big')), 'KeyNotFound');
        const created = await store.create(key('small'), configMap('small', { v: '1' }));
        await expectCode(store.update(key('small'), { ...created, data: { v: big } }), 'TooLarge');
        expect((await store.get<ContractTestObject>(key('small'))).data).toEqual({ v: '1' });
      });
    });

    describe('guaranteedUpdate', () => {
      test('N concurrent read-modify-write loops on one key lose no update', async () => {
        const store = await open();
        await store.create(key('counter'), configMap('counter', { n: '0' }));
        const writers = 8;
        const increments = 10;
        const start = await store.currentRevision();
        await Promise.all(
          Array.from({ length: writers }, async () => {
            for (let i = 0; i < increments; i++) {
              await store.guaranteedUpdate<ContractTestObject>(key('counter'), async (current) => {
                const n = Number(current?.data?.n);
                // Yield between read and write so the writers really interleave.
                await new Promise((resolve) => setImmediate(resolve));
                return { ...(current as ContractTestObject), data: { n: String(n + 1) } };
              });
            }
          }),
        );
        const final = await store.get<ContractTestObject>(key('counter'));
        expect(final.data?.n).toBe(String(writers * increments));
        expect(await store.currentRevision()).toBe(start + writers * increments);
      });

      test('an update that changes nothing writes nothing', async () => {
        const store = await open();
        const created = await store.create(key('a'), configMap('a', { v: '1' }));
        const same = await store.guaranteedUpdate<ContractTestObject>(key('a'), (current) => current as ContractTestObject);
        expect(same.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
        expect(await store.currentRevision()).toBe(Number(created.metadata.resourceVersion));
      });

      test('preconditions are checked, tryUpdate errors abort, ignoreNotFound creates', async () => {
        const store = await open();
        const created = await store.create(key('a'), configMap('a', { v: '1' }, 'uid-1'));
        await expectCode(
          store.guaranteedUpdate<ContractTestObject>(key('a'), (c) => ({ ...(c as ContractTestObject), data: { v: '2' } }), {
            preconditions: { uid: 'uid-2' },
          }),
          'InvalidPrecondition',
        );
        await expectCode(
          store.guaranteedUpdate<ContractTestObject>(key('a'), (c) => ({ ...(c as ContractTestObject), data: { v: '2' } }), {
            preconditions: { resourceVersion: String(Number(created.metadata.resourceVersion) - 1) },
          }),
          'Conflict',
        );
        await expect(
          store.guaranteedUpdate<ContractTestObject>(key('a'), () => {
            throw new Error('rejected by admission');
          }),
        ).rejects.toThrow('rejected by admission');
        await expectCode(
          store.guaranteedUpdate<ContractTestObject>(key('b'), (c) => c as ContractTestObject),
          'KeyNotFound',
        );
        const made = await store.guaranteedUpdate<ContractTestObject>(key('b'), (c) => c ?? configMap('b', { new: 'yes' }), {
          ignoreNotFound: true,
        });
        expect(made.data).toEqual({ new: 'yes' });
        expect((await store.get<ContractTestObject>(key('a'))).data).toEqual({ v: '1' });
      });
    });

    describe('list', () => {
      test('lists objects under a prefix in key order, with the revision read at', async () => {
        const store = await open();
        for (const name of ['c', 'a', 'b']) await store.create(key(name), configMap(name));
        await store.create(key('a', 'other'), configMap('a'));
        await store.create('/registry/configmaps/ns1x/z', configMap('z'));
        const result = await store.list<ContractTestObject>(prefix());
        expect(result.items.map((o) => o.metadata.name)).toEqual(['a', 'b', 'c']);
        expect(result.revision).toBe(await store.currentRevision());
        expect(result.continue).toBeUndefined();
        expect(await store.count(prefix())).toBe(3);
        expect((await store.list(prefix('other'))).items).toHaveLength(1);
      });

      test('all pages of a paged list are one snapshot while writes go on', async () => {
        const store = await open();
        const names = Array.from({ length: 23 }, (_, i) => `obj-${String(i).padStart(2, '0')}`);
        const snapshot = new Map<string, string>();
        for (const name of names) {
          const created = await store.create(key(name), configMap(name, { v: '0' }));
          snapshot.set(name, created.metadata.resourceVersion as string);
        }
        const first = await store.list<ContractTestObject>(prefix(), { limit: 5 });
        expect(first.items).toHaveLength(5);
        expect(first.continue).toBeDefined();
        const seen = [...first.items];
        let token = first.continue;
        let round = 0;
        while (token !== undefined) {
          // Writes between pages: update, delete and create inside the listed range.
          round += 1;
          await store.update(key(names[names.length - round]), configMap(names[names.length - round], { v: 'changed' }));
          await store.delete(key(names[names.length - 1 - round - 5]));
          await store.create(key(`obj-${round}-new`), configMap(`obj-${round}-new`));
          const page = await store.list<ContractTestObject>(prefix(), { limit: 5, continue: token });
          expect(page.revision).toBe(first.revision);
          seen.push(...page.items);
          token = page.continue;
        }
        expect(seen.map((o) => o.metadata.name)).toEqual(names);
        for (const item of seen) {
          expect(item.data).toEqual({ v: '0' });
          expect(item.metadata.resourceVersion).toBe(snapshot.get(item.metadata.name));
        }
        const exact = await store.list<ContractTestObject>(prefix(), { revision: first.revision, match: 'Exact' });
        expect(exact.items.map((o) => o.metadata.name)).toEqual(names);
        expect(exact.revision).toBe(first.revision);
      });

      test('an exact list reads the state at that revision; NotOlderThan reads the latest', async () => {
        const store = await open();
        await store.create(key('a'), configMap('a', { v: '1' }));
        const b = await store.create(key('b'), configMap('b'));
        const at = Number(b.metadata.resourceVersion);
        await store.update(key('a'), configMap('a', { v: '2' }));
        await store.delete(key('b'));
        await store.create(key('c'), configMap('c'));
        const exact = await store.list<ContractTestObject>(prefix(), { revision: at, match: 'Exact' });
        expect(exact.revision).toBe(at);
        expect(exact.items.map((o) => [o.metadata.name, o.data])).toEqual([
          ['a', { v: '1' }],
          ['b', undefined],
        ]);
        const latest = await store.list<ContractTestObject>(prefix(), { revision: at });
        expect(latest.revision).toBe(await store.currentRevision());
        expect(latest.items.map((o) => o.metadata.name)).toEqual(['a', 'c']);
      });

      test('a malformed continue token fails with InvalidArgument', async () => {
        const store = await open();
        await expectCode(store.list(prefix(), { continue: 'not-a-token' }), 'InvalidArgument');
      });
    });

    describe('watch', () => {
      test('a watch from a revision under 8 concurrent writers sees every change once, in order, with no gap', async () => {
        const store = await open();
        await store.create(key('seed'), configMap('seed'));
        const from = await store.currentRevision();
        const writes: Array<{ key: string; type: string; revision: number }> = [];
        const record = (k: string, type: string, object: StoredObject): void => {
          writes.push({ key: k, type, revision: Number(object.metadata?.resourceVersion) });
        };
        const writer = async (w: number): Promise<void> => {
          for (let i = 0; i < 12; i++) {
            const name = `w${w}-${i % 4}`;
            const k = key(name);
            if (i < 4) record(k, 'ADDED', await store.create(k, configMap(name, { i: String(i) })));
            else if (i < 10) record(k, 'MODIFIED', await store.update(k, configMap(name, { i: String(i) })));
            else record(k, 'DELETED', await store.delete(k));
            // Writes outside the watched prefix take revisions too and must not show up.
            await store.create(key(`${name}-${i}`, 'elsewhere'), configMap(name));
          }
        };
        const early = await store.watch<ContractTestObject>(prefix(), { revision: from });
        const writers = Array.from({ length: 8 }, (_, w) => writer(w));
        // A second watch from the same revision starts mid-burst: it must catch up and go live cleanly.
        await Promise.race([Promise.all(writers), new Promise((resolve) => setTimeout(resolve, 20))]);
        const late = await store.watch<ContractTestObject>(prefix(), { revision: from });
        await Promise.all(writers);
        expect(writes).toHaveLength(96);
        const expected = [...writes].sort((a, b) => a.revision - b.revision);
        for (const watcher of [early, late]) {
          const events = (await take(watcher, expected.length)) as Array<ChangeEvent<ContractTestObject>>;
          expect(events.map((e) => ({ key: e.key, type: e.type, revision: e.revision }))).toEqual(expected);
          for (const event of events) expect(event.object.metadata.resourceVersion).toBe(String(event.revision));
          watcher.stop();
        }
        const end = await store.currentRevision();
        expect(end).toBe(from + 96 * 2);
      });

      test('events carry the previous object; DELETED carries the last state at the deletion revision', async () => {
        const store = await open();
        const watcher = await store.watch<ContractTestObject>(prefix());
        const created = await store.create(key('a'), configMap('a', { v: '1' }));
        const updated = await store.update(key('a'), configMap('a', { v: '2' }));
        const deleted = await store.delete<ContractTestObject>(key('a'));
        const [added, modified, removed] = (await take(watcher, 3)) as Array<ChangeEvent<ContractTestObject>>;
        expect(added).toMatchObject({ type: 'ADDED', key: key('a'), object: created });
        expect(added.prevObject).toBeUndefined();
        expect(modified).toMatchObject({ type: 'MODIFIED', object: updated, prevObject: created });
        expect(removed).toMatchObject({ type: 'DELETED', object: deleted, prevObject: updated });
        expect(removed.object.metadata.resourceVersion).toBe(String(removed.revision));
        expect(removed.object.data).toEqual({ v: '2' });
      });

      test('a watch with initial state sends ADDED for existing objects, a marked PROGRESS, then changes', async () => {
        const store = await open();
        await store.create(key('b'), configMap('b'));
        await store.create(key('a'), configMap('a'));
        await store.create(key('x', 'other'), configMap('x'));
        const at = await store.currentRevision();
        const watcher = await store.watch<ContractTestObject>(prefix(), { initialEvents: true });
        await store.create(key('c'), configMap('c'));
        const events = await take(watcher, 4, true);
        expect(events.map(describeEvent)).toEqual(['ADDED a', 'ADDED b', `PROGRESS end ${at}`, 'ADDED c']);
        watcher.stop();
      });

      test('a watch with initial state at an old revision shows the state then, then every later change', async () => {
        const store = await open();
        await store.create(key('a'), configMap('a', { v: '1' }));
        const at = await store.currentRevision();
        await store.update(key('a'), configMap('a', { v: '2' }));
        await store.delete(key('a'));
        await store.create(key('b'), configMap('b'));
        const watcher = await store.watch<ContractTestObject>(prefix(), { revision: at, initialEvents: true });
        const events = await take(watcher, 5, true);
        expect(events.map(describeEvent)).toEqual(['ADDED a', `PROGRESS end ${at}`, 'MODIFIED a', 'DELETED a', 'ADDED b']);
      });

      test('progress notifications carry a revision up to which everything was delivered', async () => {
        const store = await open();
        await store.create(key('a', 'other'), configMap('a'));
        const watcher = await store.watch<ContractTestObject>(prefix(), { progressIntervalMs: 50 });
        await store.create(key('other-prefix', 'elsewhere'), configMap('x'));
        const current = await store.currentRevision();
        const [periodic] = await take(watcher, 1, true);
        expect(periodic.type).toBe('PROGRESS');
        expect(periodic.revision).toBeGreaterThanOrEqual(current - 1);
        watcher.stop();

        const asked = await store.watch<ContractTestObject>(prefix());
        const created = await store.create(key('b'), configMap('b'));
        await take(asked, 1);
        asked.requestProgress();
        const [progress] = await take(asked, 1, true);
        expect(progress).toMatchObject({ type: 'PROGRESS' });
        expect(progress.revision).toBeGreaterThanOrEqual(Number(created.metadata.resourceVersion));
      });

      test('stop ends the iteration without error', async () => {
        const store = await open();
        const watcher = await store.watch<ContractTestObject>(prefix());
        const pending = watcher[Symbol.asyncIterator]().next();
        watcher.stop();
        await expect(pending).resolves.toMatchObject({ done: true });
        await expect(watcher.ended).resolves.toBeUndefined();
      });

      test('a consumer that falls behind is cut off with WatchOverflow after the buffered events', async () => {
        const store = await open({ watchBufferLimit: 5 });
        const watcher = await store.watch<ContractTestObject>(prefix());
        for (let i = 0; i < 8; i++) await store.create(key(`o${i}`), configMap(`o${i}`));
        await expect(withTimeout(watcher.ended, 5_000)).resolves.toMatchObject({ code: 'WatchOverflow' });
        const iterator = watcher[Symbol.asyncIterator]();
        const delivered: string[] = [];
        await expect(
          (async () => {
            for (;;) {
              const next = await iterator.next();
              if (next.done) return;
              delivered.push(describeEvent(next.value));
            }
          })(),
        ).rejects.toMatchObject({ code: 'WatchOverflow' });
        expect(delivered).toEqual(['ADDED o0', 'ADDED o1', 'ADDED o2', 'ADDED o3', 'ADDED o4']);
      });
    });

    describe('history', () => {
      test('after compaction, older revisions fail with Expired and newer ones stay exact', async () => {
        const store = await open();
        await store.create(key('a'), configMap('a', { v: '1' }));
        await store.create(key('b'), configMap('b', { v: '1' }));
        const page = await store.list(prefix(), { limit: 1 });
        await store.update(key('a'), configMap('a', { v: '2' }));
        await store.delete(key('b'));
        const compactAt = await store.currentRevision();
        await store.create(key('c'), configMap('c'));
        await store.update(key('a'), configMap('a', { v: '3' }));
        await store.compact(compactAt);
        expect(await store.compactedRevision()).toBe(compactAt);

        await expectCode(store.watch(prefix(), { revision: compactAt - 1 }), 'Expired');
        await expectCode(store.list(prefix(), { revision: compactAt - 1, match: 'Exact' }), 'Expired');
        await expectCode(store.list(prefix(), { limit: 1, continue: page.continue }), 'Expired');

        const exact = await store.list<ContractTestObject>(prefix(), { revision: compactAt, match: 'Exact' });
        expect(exact.items.map((o) => [o.metadata.name, o.data])).toEqual([['a', { v: '2' }]]);
        const watcher = await store.watch<ContractTestObject>(prefix(), { revision: compactAt });
        const events = await take(watcher, 2);
        expect(events.map(describeEvent)).toEqual(['ADDED c', 'MODIFIED a']);
        expect((events[1] as ChangeEvent<ContractTestObject>).prevObject?.data).toEqual({ v: '2' });
      });

      test('the store compacts on its own every interval, keeping at least one interval of history', async () => {
        const interval = 200;
        const store = await open({ compactionIntervalMs: interval });
        await store.create(key('a'), configMap('a'));
        const old = await store.currentRevision();
        const writes: Array<{ startedAt: number; revision: number }> = [];
        const deadline = Date.now() + 5_000;
        let compacted = 0;
        let observedAt = 0;
        while (compacted <= old && Date.now() < deadline) {
          const startedAt = Date.now();
          const written = await store.update(key('a'), configMap('a', { v: String(startedAt) }));
          writes.push({ startedAt, revision: Number(written.metadata.resourceVersion) });
          await new Promise((resolve) => setTimeout(resolve, 20));
          compacted = await store.compactedRevision();
          observedAt = Date.now();
        }
        expect(compacted).toBeGreaterThan(old);
        await expectCode(store.watch(prefix(), { revision: old }), 'Expired');
        // Every change younger than one interval (less a margin for reading the counter) is kept.
        const young = writes.filter((w) => w.startedAt > observedAt - interval + 50);
        for (const write of young) expect(write.revision).toBeGreaterThan(compacted);
      });

      test('a revision newer than the store waits briefly, then fails with TooLargeResourceVersion', async () => {
        const store = await open({ tooLargeWaitMs: 200 });
        const future = (await store.currentRevision()) + 5;
        const started = Date.now();
        await expect(store.get(key('a'), { minRevision: future })).rejects.toMatchObject({
          code: 'TooLargeResourceVersion',
          message: expect.stringContaining('Too large resource version') as unknown,
        });
        expect(Date.now() - started).toBeGreaterThanOrEqual(150);
        await expectCode(store.list(prefix(), { revision: future }), 'TooLargeResourceVersion');
        await expectCode(store.list(prefix(), { revision: future, match: 'Exact' }), 'TooLargeResourceVersion');
        await expectCode(store.watch(prefix(), { revision: future }), 'TooLargeResourceVersion');
      });

      test('a revision reached during the wait is served', async () => {
        const store = await open({ tooLargeWaitMs: 3_000 });
        const next = (await store.currentRevision()) + 1;
        const listing = store.list<ContractTestObject>(prefix(), { revision: next });
        setTimeout(() => void store.create(key('late'), configMap('late')), 50);
        const result = await listing;
        expect(result.revision).toBeGreaterThanOrEqual(next);
        expect(result.items.map((o) => o.metadata.name)).toEqual(['late']);
      });
    });

    describe('keys with a time to live', () => {
      test('a key written with a TTL is deleted when it expires (a DELETED event); a later write without one keeps it', async () => {
        const store = await open();
        const watcher = await store.watch<ContractTestObject>(prefix());
        const started = Date.now();
        await store.create(key('short'), configMap('short', { v: '1' }), { ttlSeconds: 1 });
        await store.create(key('kept'), configMap('kept', { v: '1' }), { ttlSeconds: 1 });
        const renewed = await store.guaranteedUpdate<ContractTestObject>(key('renewed'), () => configMap('renewed'), { ignoreNotFound: true, ttlSeconds: 1 });
        await store.update(key('kept'), configMap('kept', { v: '2' }));
        expect((await store.get<ContractTestObject>(key('short'))).data).toEqual({ v: '1' });
        const events = (await take(watcher, 6, false, 15_000)) as Array<ChangeEvent<ContractTestObject>>;
        expect(events.slice(0, 4).map(describeEvent)).toEqual(['ADDED short', 'ADDED kept', 'ADDED renewed', 'MODIFIED kept']);
        expect(events.slice(4).map(describeEvent).sort()).toEqual(['DELETED renewed', 'DELETED short']);
        // Never before the time to live.
        expect(Date.now() - started).toBeGreaterThanOrEqual(900);
        const deleted = events.find((e) => e.key === key('short')) as ChangeEvent<ContractTestObject>;
        expect(deleted.object.data).toEqual({ v: '1' });
        await expectCode(store.get(key('short')), 'KeyNotFound');
        await expectCode(store.get(key(renewed.metadata.name)), 'KeyNotFound');
        expect((await store.get<ContractTestObject>(key('kept'))).data).toEqual({ v: '2' });
        expect((await store.list(prefix())).items).toHaveLength(1);
      }, 20_000);
    });

    describe('lifecycle', () => {
      test('health check passes on an open store', async () => {
        const store = await open();
        await expect(store.healthCheck()).resolves.toBeUndefined();
      });

      test('close ends every watch with Closed and later calls fail with Closed', async () => {
        const store = await open();
        const watcher = await store.watch<ContractTestObject>(prefix());
        const pending = watcher[Symbol.asyncIterator]().next();
        await store.close();
        await expect(pending).rejects.toMatchObject({ code: 'Closed' });
        await expectCode(store.get(key('a')), 'Closed');
        await expectCode(store.create(key('a'), configMap('a')), 'Closed');
        await store.close();
      });
    });
  });
}

export const NAMESPACE = 'ns1';

export function key(name: string, namespace = NAMESPACE): string {
  return `/registry/configmaps/${namespace}/${name}`;
}

export function prefix(namespace = NAMESPACE): string {
  return `/registry/configmaps/${namespace}/`;
}

export function configMap(name: string, data?: Record<string, string>, uid?: string): ContractTestObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: NAMESPACE, ...(uid === undefined ? {} : { uid }) },
    ...(data === undefined ? {} : { data }),
  };
}

export async function expectCode(promise: Promise<unknown>, code: StorageErrorCode): Promise<void> {
  await expect(promise).rejects.toMatchObject({ name: 'StorageError', code });
}

/**
 * The next `count` events of a watch (PROGRESS events skipped unless `withProgress`); fails if they do
 * not arrive within `timeoutMs` or the watch ends.
 */
export async function take<T extends StoredObject>(
  watcher: Watcher<T>,
  count: number,
  withProgress = false,
  timeoutMs = 10_000,
): Promise<Array<StorageWatchEvent<T>>> {
  const iterator = watcher[Symbol.asyncIterator]();
  const events: Array<StorageWatchEvent<T>> = [];
  const deadline = Date.now() + timeoutMs;
  while (events.length < count) {
    const next = await withTimeout(iterator.next(), deadline - Date.now(), `${events.length} of ${count} events`);
    if (next.done) throw new Error(`watch ended after ${events.length} of ${count} events`);
    if (next.value.type === 'PROGRESS' && !withProgress) continue;
    events.push(next.value);
  }
  return events;
}

export function describeEvent(event: StorageWatchEvent<StoredObject>): string {
  if (event.type === 'PROGRESS') return `PROGRESS${event.initialEventsEnd ? ' end' : ''} ${event.revision}`;
  return `${event.type} ${event.key.slice(event.key.lastIndexOf('/') + 1)}`;
}

export async function withTimeout<T>(promise: Promise<T>, ms: number, what = 'operation'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), Math.max(ms, 0));
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
