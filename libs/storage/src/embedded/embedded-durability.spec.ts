import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStorage } from '../create-storage';
import type { ChangeEvent } from '../storage';
import { configMap, expectCode, key, prefix, take } from '../testing/contract-suite';
import type { ContractTestObject } from '../testing/contract-suite';
import { EmbeddedStorage } from './embedded-storage';

const CHILD = join(__dirname, '..', 'testing', 'embedded-child.js');
const BURST_PREFIX = '/registry/configmaps/burst/';

describe('embedded storage backend: durability and exclusive ownership of the data directory', () => {
  let dataDir: string;
  const stores: EmbeddedStorage[] = [];
  const open = (): EmbeddedStorage => {
    const store = EmbeddedStorage.open({ dataDir, compactionIntervalMs: 0 });
    stores.push(store);
    return store;
  };

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-storage-durability-'));
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('after a restart the data, the revision counter, the history and the compacted revision are all there', async () => {
    const first = open();
    await first.create(key('a'), configMap('a', { v: '1' }));
    await first.update(key('a'), configMap('a', { v: '2' }));
    const compactAt = await first.currentRevision();
    await first.create(key('b'), configMap('b'));
    await first.compact(compactAt);
    const lastSeen = await first.currentRevision();
    await first.close();

    const second = open();
    expect(await second.currentRevision()).toBe(lastSeen);
    expect(await second.compactedRevision()).toBe(compactAt);
    expect((await second.get<ContractTestObject>(key('a'))).data).toEqual({ v: '2' });
    await expectCode(second.watch(prefix(), { revision: compactAt - 1 }), 'Expired');

    const history = await second.watch<ContractTestObject>(prefix(), { revision: compactAt });
    const fromLastSeen = await second.watch<ContractTestObject>(prefix(), { revision: lastSeen });
    const next = await second.create(key('c'), configMap('c'));
    expect(Number(next.metadata.resourceVersion)).toBe(lastSeen + 1);
    expect((await take(history, 2)).map((e) => [e.type, e.revision])).toEqual([
      ['ADDED', lastSeen],
      ['ADDED', lastSeen + 1],
    ]);
    expect((await take(fromLastSeen, 1)).map((e) => [e.type, e.revision])).toEqual([['ADDED', lastSeen + 1]]);
  });

  test('a second opener of the same data directory is refused with a clear error, in another process or this one', async () => {
    open();
    const refused = await runChild('open');
    expect(JSON.parse(refused.stdout)).toEqual({
      opened: false,
      code: 'Unavailable',
      message: expect.stringContaining(`data directory ${dataDir} is in use by another process`),
    });
    expect(() => EmbeddedStorage.open({ dataDir, compactionIntervalMs: 0 })).toThrow(/is in use by another process/);
    await stores[0].close();
    const accepted = await runChild('open');
    expect(JSON.parse(accepted.stdout)).toEqual({ opened: true });
  });

  test('kill -9 in the middle of a write burst loses no acknowledged write; revisions and watches go on without a gap', async () => {
    const { acks, signal, ready } = await burstUntilKilled(300);
    expect(signal).toBe('SIGKILL');
    expect(acks.length).toBeGreaterThanOrEqual(300);
    // The child wrote one change at a time: its acknowledged revisions are consecutive.
    acks.forEach((ack, index) => expect(ack.revision).toBe(ready + 1 + index));
    const lastAck = acks[acks.length - 1].revision;

    // The lock died with the process: the directory opens at once.
    const store = open();
    const current = await store.currentRevision();
    expect(current).toBeGreaterThanOrEqual(lastAck);
    for (const ack of acks) {
      const stored = await store.get<ContractTestObject>(ack.key);
      expect(Number(stored.metadata.resourceVersion)).toBeGreaterThanOrEqual(ack.revision);
      if (ack.type === 'MODIFIED') expect(stored.data).toEqual({ i: 'updated' });
    }

    const fromLastAck = await store.watch<ContractTestObject>(BURST_PREFIX, { revision: lastAck });
    const fromEarly = await store.watch<ContractTestObject>(BURST_PREFIX, { revision: ready });
    const next = await store.create(`${BURST_PREFIX}after-restart`, configMap('after-restart'));
    expect(Number(next.metadata.resourceVersion)).toBe(current + 1);

    const tail = (await take(fromLastAck, current + 1 - lastAck)) as Array<ChangeEvent<ContractTestObject>>;
    expect(tail.map((e) => e.revision)).toEqual(range(lastAck + 1, current + 1));
    const all = (await take(fromEarly, current + 1 - ready)) as Array<ChangeEvent<ContractTestObject>>;
    expect(all.map((e) => e.revision)).toEqual(range(ready + 1, current + 1));
    expect(all.slice(0, acks.length).map((e) => ({ type: e.type, key: e.key, revision: e.revision }))).toEqual(acks);
  });

  test('the factory opens the embedded backend from the process configuration', async () => {
    const store = await createStorage({ backend: 'embedded', dataDir, compactionIntervalMs: 300_000 });
    stores.push(store as EmbeddedStorage);
    expect(store.backend).toBe('embedded');
    await store.create(key('a'), configMap('a'));
    expect(await store.count(prefix())).toBe(1);
    await expect(createStorage({ backend: 'embedded', compactionIntervalMs: 0 })).rejects.toMatchObject({
      code: 'InvalidArgument',
      message: expect.stringContaining('--data-dir'),
    });
  });

  function runChild(mode: string): Promise<{ stdout: string; code: number | null }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [CHILD, mode, dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ stdout, code }));
    });
  }

  interface Ack {
    type: string;
    key: string;
    revision: number;
  }

  function burstUntilKilled(minimumAcks: number): Promise<{ acks: Ack[]; signal: NodeJS.Signals | null; ready: number }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [CHILD, 'burst', dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
      const acks: Ack[] = [];
      let ready = -1;
      let pending = '';
      let killed = false;
      const guard = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.stdout.on('data', (chunk: Buffer) => {
        pending += chunk.toString();
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) {
          const [word, second, third] = line.split(' ');
          if (word === 'ready') ready = Number(second);
          else if (word === 'ADDED' || word === 'MODIFIED') acks.push({ type: word, key: second, revision: Number(third) });
          else reject(new Error(`child said: ${line}`));
        }
        if (!killed && acks.length >= minimumAcks) {
          killed = true;
          child.kill('SIGKILL');
        }
      });
      child.on('error', reject);
      child.on('close', (_code, signal) => {
        clearTimeout(guard);
        resolve({ acks, signal, ready });
      });
    });
  }
});

function range(from: number, toInclusive: number): number[] {
  return Array.from({ length: toInclusive - from + 1 }, (_, i) => from + i);
}
