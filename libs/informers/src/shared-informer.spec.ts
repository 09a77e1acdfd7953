import type { AddInfo, DeleteInfo, ResourceEventHandler } from './event-handler';
import { FakeResourceServer } from './testing/fake-resource-server';
import { silentInformerLogger, type InformerLogger } from './logger';
import { SharedInformer, type SharedInformerOptions } from './shared-informer';
import { eventually, settle } from './testing/eventually';
import { pod, versions, type TestPod } from './testing/objects';
import { ManualQueueClock } from './workqueue';

const informers: SharedInformer<TestPod>[] = [];
afterEach(async () => {
  await Promise.all(informers.splice(0).map((i) => i.stop()));
});

function informerOver(server: FakeResourceServer<TestPod>, options: SharedInformerOptions<TestPod> = {}): SharedInformer<TestPod> {
  const informer = new SharedInformer<TestPod>(server.listerWatcher(), {
    logger: silentInformerLogger,
    backoff: { initialMs: 4, maxMs: 20 },
    watchLivenessTimeoutMs: 0,
    ...options,
  });
  informers.push(informer);
  return informer;
}

/** A handler that writes down what it is told, as `add a`, `update a`, `delete a`. */
function recorder(): ResourceEventHandler<TestPod> & { log: string[]; infos: (AddInfo | DeleteInfo)[] } {
  const log: string[] = [];
  const infos: (AddInfo | DeleteInfo)[] = [];
  return {
    log,
    infos,
    onAdd: (obj, info) => {
      log.push(`add ${obj.metadata.name}`);
      infos.push(info);
    },
    onUpdate: (oldObj, newObj) => void log.push(`${oldObj === newObj ? 'resync' : 'update'} ${newObj.metadata.name}`),
    onDelete: (obj, info) => {
      log.push(`delete ${obj.metadata.name}`);
      infos.push(info);
    },
  };
}

describe('SharedInformer', () => {
  it('tells handlers added before start about the initial list, then every change, in order', async () => {
    const server = new FakeResourceServer<TestPod>();
    server.create(pod('ns', 'a'));
    server.create(pod('ns', 'b'));
    const informer = informerOver(server);
    const first = recorder();
    const second = recorder();
    const reg = informer.addEventHandler(first);
    informer.addEventHandler(second);
    expect(informer.hasSynced()).toBe(false);
    informer.start();
    await expect(informer.whenSynced(2_000)).resolves.toBe(true);
    await eventually(() => expect(reg.hasSynced()).toBe(true));
    expect(first.log).toEqual(['add a', 'add b']);
    expect(first.infos).toEqual([{ isInInitialList: true }, { isInInitialList: true }]);

    server.create(pod('ns', 'c'));
    server.update(pod('ns', 'a', { spec: { image: 'v2' } }));
    server.delete('ns/b');
    const expected = ['add a', 'add b', 'add c', 'update a', 'delete b'];
    await eventually(() => expect(first.log).toEqual(expected));
    await eventually(() => expect(second.log).toEqual(expected));
    expect(first.infos.slice(2)).toEqual([{ isInInitialList: false }, { finalStateUnknown: false }]);
    expect(versions(informer.lister().list())).toEqual(versions(server.items()));
  });

  it('gives a handler added late an add for every cached object, then later changes, exactly once', async () => {
    const server = new FakeResourceServer<TestPod>();
    server.create(pod('ns', 'a'));
    server.create(pod('ns', 'b'));
    const informer = informerOver(server);
    informer.start();
    await informer.whenSynced();
    const late = recorder();
    const reg = informer.addEventHandler(late);
    server.create(pod('ns', 'c'));
    await eventually(() => expect(late.log).toEqual(['add a', 'add b', 'add c']));
    expect(reg.hasSynced()).toBe(true);
    expect(late.infos).toEqual([{ isInInitialList: true }, { isInInitialList: true }, { isInInitialList: false }]);
  });

  it('keeps delivering after a handler throws or rejects, and logs the failure', async () => {
    const server = new FakeResourceServer<TestPod>();
    const errors: string[] = [];
    const logger: InformerLogger = { ...silentInformerLogger, error: (message) => errors.push(message) };
    const informer = informerOver(server, { logger });
    const seen: string[] = [];
    informer.addEventHandler({
      onAdd: (obj) => {
        seen.push(obj.metadata.name);
        if (obj.metadata.name === 'boom') throw new Error('handler bug');
      },
      onDelete: async () => {
        throw new Error('async handler bug');
      },
    });
    informer.start();
    await informer.whenSynced();
    server.create(pod('ns', 'boom'));
    server.delete('ns/boom');
    server.create(pod('ns', 'after'));
    await eventually(() => expect(seen).toEqual(['boom', 'after']));
    await eventually(() => expect(errors).toHaveLength(2));
    expect(errors[0]).toMatch(/handler 1: event handler failed on added/);
    expect(informer.healthy()).toBe(true);
  });

  it('lets a slow handler fall behind without holding up the others or the cache', async () => {
    const server = new FakeResourceServer<TestPod>();
    const informer = informerOver(server);
    let releaseSlow: () => void = () => undefined;
    const slowSeen: string[] = [];
    const slow = informer.addEventHandler({
      onAdd: async (obj) => {
        slowSeen.push(obj.metadata.name);
        await new Promise<void>((resolve) => (releaseSlow = resolve));
      },
    });
    const fast = recorder();
    informer.addEventHandler(fast);
    informer.start();
    await informer.whenSynced();
    for (let i = 0; i < 50; i++) server.create(pod('ns', `p${i}`));
    await eventually(() => expect(fast.log).toHaveLength(50));
    expect(informer.lister().list()).toHaveLength(50);
    expect(slowSeen).toEqual(['p0']);
    expect(slow.pending()).toBe(49);
    // The slow handler still gets everything, in order, one at a time.
    const drain = setInterval(() => releaseSlow(), 1);
    await eventually(() => expect(slowSeen).toHaveLength(50));
    clearInterval(drain);
    releaseSlow();
    expect(slowSeen).toEqual(Array.from({ length: 50 }, (_, i) => `p${i}`));
  });

  it('stops delivering to a removed handler', async () => {
    const server = new FakeResourceServer<TestPod>();
    const informer = informerOver(server);
    const kept = recorder();
    const dropped = recorder();
    informer.addEventHandler(kept);
    const reg = informer.addEventHandler(dropped);
    informer.start();
    await informer.whenSynced();
    reg.remove();
    server.create(pod('ns', 'a'));
    await eventually(() => expect(kept.log).toEqual(['add a']));
    await settle(5);
    expect(dropped.log).toEqual([]);
  });

  it('resyncs every handler after a random period in [p, 2p), drawn anew each time', async () => {
    const clock = new ManualQueueClock();
    const draws = [0, 0.5, 0.999];
    const server = new FakeResourceServer<TestPod>();
    server.create(pod('ns', 'a'));
    const informer = informerOver(server, { clock, resyncPeriodMs: 1_000, random: () => draws.shift() ?? 0 });
    const h = recorder();
    informer.addEventHandler(h);
    informer.start();
    await informer.whenSynced();
    // Draws: 0 for the first resync (after 1000 ms), 0.5 for the watch's timeout, 0.999 for the
    // second resync (1999 ms after the first).
    await eventually(() => expect(h.log).toEqual(['add a']));
    clock.advance(999);
    await settle(5);
    expect(h.log).toEqual(['add a']);
    clock.advance(1);
    await eventually(() => expect(h.log).toEqual(['add a', 'resync a']));
    clock.advance(1_998);
    await settle(5);
    expect(h.log).toEqual(['add a', 'resync a']);
    clock.advance(1);
    await eventually(() => expect(h.log).toEqual(['add a', 'resync a', 'resync a']));
  });

  it('reports deletions found by a relist as final state unknown, with the last known object', async () => {
    const server = new FakeResourceServer<TestPod>();
    server.create(pod('ns', 'a', { spec: { image: 'v1' } }));
    server.create(pod('ns', 'b'));
    const informer = informerOver(server);
    const deleted: { obj: TestPod; info: DeleteInfo }[] = [];
    informer.addEventHandler({ onDelete: (obj, info) => void deleted.push({ obj, info }) });
    informer.start();
    await informer.whenSynced();
    await eventually(() => expect(server.openWatches).toBe(1));
    server.setDown(true);
    server.delete('ns/a');
    server.compact();
    server.setDown(false);
    await eventually(() => expect(deleted).toHaveLength(1));
    expect(deleted[0].info).toEqual({ finalStateUnknown: true });
    expect(deleted[0].obj.spec?.image).toBe('v1');
    expect(informer.listCount).toBe(2);
  });

  it('waits for its own writes: resolves once the cache has the written version', async () => {
    const server = new FakeResourceServer<TestPod>();
    const informer = informerOver(server);
    informer.start();
    await informer.whenSynced();
    await eventually(() => expect(server.openWatches).toBe(1));
    const written = server.create(pod('ns', 'mine'));
    const reached = await informer.waitForResourceVersion('ns/mine', written.metadata.resourceVersion!, 2_000);
    expect(reached).toBe(true);
    expect(informer.lister().namespace('ns').get('mine')?.metadata.resourceVersion).toBe(written.metadata.resourceVersion);

    // While the watch is down the write cannot show up: the wait is bounded.
    server.setDown(true);
    const unseen = server.update(pod('ns', 'mine', { spec: { image: 'v2' } }));
    const t0 = Date.now();
    await expect(informer.waitForResourceVersion('ns/mine', unseen.metadata.resourceVersion!, 50)).resolves.toBe(false);
    expect(Date.now() - t0).toBeLessThan(1_000);
  });

  it('whenSynced is false on timeout and when stopped first; stop frees the cache and ends pending waits', async () => {
    const server = new FakeResourceServer<TestPod>();
    server.setDown(true);
    const informer = informerOver(server);
    informer.start();
    await expect(informer.whenSynced(20)).resolves.toBe(false);
    const pendingSync = informer.whenSynced();
    const pendingWait = informer.waitForResourceVersion('ns/x', '100', 60_000);
    server.setDown(false);
    server.create(pod('ns', 'x'));
    await expect(pendingSync).resolves.toBe(true);
    expect(informer.indexer.size).toBe(1);
    await informer.stop();
    await expect(pendingWait).resolves.toBe(false);
    expect(informer.indexer.size).toBe(0);
    expect(informer.isStopped).toBe(true);
    expect(informer.healthy()).toBe(false);
    expect(() => informer.addEventHandler({})).toThrow(/stopped/);
    await expect(informer.whenSynced()).resolves.toBe(true); // it did sync once
  });

  it('accepts indexers after start, built over what is cached', async () => {
    const server = new FakeResourceServer<TestPod>();
    server.create(pod('ns', 'a', { spec: { nodeName: 'n1' } }));
    const informer = informerOver(server);
    informer.start();
    await informer.whenSynced();
    informer.addIndexers({ byNode: (p) => (p.spec?.nodeName ? [p.spec.nodeName] : []) });
    server.create(pod('ns', 'b', { spec: { nodeName: 'n1' } }));
    await eventually(() => expect(informer.indexer.indexKeys('byNode', 'n1').sort()).toEqual(['ns/a', 'ns/b']));
  });
});
