import type { ChangeEvent, StoredObject } from './storage';
import { StorageError } from './storage-error';
import { WatchChannel } from './watch-channel';

function change(revision: number): ChangeEvent<StoredObject> {
  return { type: 'MODIFIED', key: '/k', object: { metadata: { resourceVersion: String(revision) } }, revision };
}

describe('watch channel', () => {
  test('delivers long runs of live events in order while the consumer keeps pace, dropping duplicates', async () => {
    const channel = new WatchChannel<StoredObject>({ startRevision: 0, bufferLimit: 5_000, progressRevision: () => 0, onEnd: () => undefined });
    const seen: number[] = [];
    for (let round = 0; round < 4; round++) {
      for (let i = 1; i <= 1_500; i++) channel.push(change(round * 1_500 + i));
      channel.push(change(round * 1_500 + 3)); // an old revision is a duplicate and never shows
      for (let i = 0; i < 1_500; i++) {
        const next = await channel.next();
        if (!next.done) seen.push(next.value.revision);
      }
    }
    expect(seen).toEqual(Array.from({ length: 6_000 }, (_, i) => i + 1));
  });

  test('concurrent next() calls receive distinct events in order', async () => {
    const channel = new WatchChannel<StoredObject>({ startRevision: 10, bufferLimit: 10, progressRevision: () => 0, onEnd: () => undefined });
    const pulls = [channel.next(), channel.next(), channel.next()];
    channel.push(change(11));
    channel.push(change(12));
    const first = await Promise.all(pulls.slice(0, 2));
    channel.stop();
    const results = [...first, await pulls[2]];
    expect(results.map((r) => (r.done ? 'done' : r.value.revision))).toEqual([11, 12, 'done']);
  });

  test('ending calls onEnd exactly once and resolves ended', async () => {
    let ends = 0;
    const channel = new WatchChannel<StoredObject>({ startRevision: 0, bufferLimit: 1, progressRevision: () => 0, onEnd: () => (ends += 1) });
    channel.push(change(1));
    channel.push(change(2));
    channel.stop();
    channel.fail(new StorageError('Closed', 'closed'));
    expect(ends).toBe(1);
    await expect(channel.ended).resolves.toMatchObject({ code: 'WatchOverflow' });
  });
});
