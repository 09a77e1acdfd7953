import { KeyedBackoff } from './keyed-backoff';

describe('KeyedBackoff', () => {
  it('restarts at once after the first failure, then waits 10 s doubling up to 5 min', () => {
    let now = 0;
    const backoff = new KeyedBackoff(10_000, 300_000, () => now);
    expect(backoff.isInBackoffSince('c', now)).toBe(false);
    const delays: number[] = [];
    for (let i = 0; i < 7; i++) {
      backoff.next('c', now);
      delays.push(backoff.get('c'));
      expect(backoff.isInBackoffSince('c', now)).toBe(true);
      now += backoff.get('c');
      expect(backoff.isInBackoffSince('c', now - backoff.get('c'))).toBe(false);
    }
    expect(delays).toEqual([10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
  });

  it('starts over once a key was left alone for twice the maximum, and forgets a pod by prefix', () => {
    let now = 0;
    const backoff = new KeyedBackoff(10_000, 300_000, () => now);
    backoff.next('uid/a', 0);
    backoff.next('uid/a', 1);
    expect(backoff.get('uid/a')).toBe(20_000);
    now = 700_000;
    backoff.next('uid/a', now);
    expect(backoff.get('uid/a')).toBe(10_000);
    backoff.next('uid/b', now);
    backoff.forgetPrefix('uid/');
    expect([backoff.get('uid/a'), backoff.get('uid/b')]).toEqual([0, 0]);
  });
});
