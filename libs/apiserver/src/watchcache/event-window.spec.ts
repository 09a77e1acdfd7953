import type { StoredObject } from '@svc/storage';
import type { CacheEntry } from './cache-events';
import { EventWindow } from './event-window';

function entry(revision: number, recordedAt: number): CacheEntry<StoredObject> {
  return { type: 'ADDED', key: `/k/${revision}`, object: {}, revision, recordedAt };
}

describe('EventWindow', () => {
  test('a fixed window keeps the last N events and knows exactly which watches it can serve', () => {
    const window = new EventWindow<StoredObject>(10, { capacity: 3 });
    expect(window.oldestWatchable).toBe(10);
    // Revisions of one resource have gaps: other resources write in between.
    for (const revision of [12, 15, 16, 20]) window.push(entry(revision, 0));
    expect(window.size).toBe(3);
    expect(window.oldestWatchable).toBe(12);
    expect(window.since(12).map((e) => e.revision)).toEqual([15, 16, 20]);
    expect(window.since(13).map((e) => e.revision)).toEqual([15, 16, 20]);
    expect(window.since(16).map((e) => e.revision)).toEqual([20]);
    expect(window.since(20)).toEqual([]);
    window.reset(30);
    expect(window.size).toBe(0);
    expect(window.oldestWatchable).toBe(30);
    expect(window.capacity).toBe(3);
  });

  test('the window doubles while full of fresh events, up to its bound', () => {
    const window = new EventWindow<StoredObject>(0, { minCapacity: 4, maxCapacity: 16, freshMs: 1_000 });
    for (let r = 1; r <= 40; r++) window.push(entry(r, r));
    expect(window.capacity).toBe(16);
    expect(window.size).toBe(16);
    expect(window.oldestWatchable).toBe(24);
    expect(window.since(24)[0].revision).toBe(25);
  });

  test('the window halves once its newest quarter is stale, keeping the newest events', () => {
    const window = new EventWindow<StoredObject>(0, { minCapacity: 4, maxCapacity: 16, freshMs: 1_000 });
    for (let r = 1; r <= 16; r++) window.push(entry(r, 0));
    expect(window.capacity).toBe(16);
    window.push(entry(17, 5_000));
    expect(window.capacity).toBe(8);
    expect(window.since(0).map((e) => e.revision)).toEqual([10, 11, 12, 13, 14, 15, 16, 17]);
    expect(window.oldestWatchable).toBe(9);
    // Slow changes never grow it again; it stays at the lower bound at most.
    for (let r = 18; r <= 40; r++) window.push(entry(r, r * 5_000));
    expect(window.capacity).toBe(4);
    expect(window.oldestWatchable).toBe(36);
  });
});
