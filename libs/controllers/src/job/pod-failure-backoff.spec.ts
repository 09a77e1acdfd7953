import type { Pod } from '@svc/api';
import { backoffDelayMs, nextBackoffRecord, podFinishedMs, remainingBackoffMs } from './pod-failure-backoff';

function ended(phase: 'Succeeded' | 'Failed', finishedAt: string): Pod {
  return {
    metadata: { creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { containers: [] },
    status: { phase, containerStatuses: [{ name: 'c', state: { terminated: { exitCode: phase === 'Failed' ? 1 : 0, finishedAt } } }] },
  };
}

describe('pod failure backoff', () => {
  it('waits 10 s after the first failure, doubling, at most 6 minutes', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 20].map((n) => backoffDelayMs(n) / 1000)).toEqual([0, 10, 20, 40, 80, 160, 320, 360, 360]);
  });

  it('counts down from the latest failure', () => {
    const last = Date.parse('2026-01-01T00:01:00Z');
    expect(remainingBackoffMs(2, last, last + 5_000)).toBe(15_000);
    expect(remainingBackoffMs(2, last, last + 25_000)).toBe(0);
    expect(remainingBackoffMs(0, undefined, last)).toBe(0);
  });

  it('adds failures, and a success resets them to those after it', () => {
    const one = nextBackoffRecord({ failuresAfterLastSuccess: 0 }, [], [ended('Failed', '2026-01-01T00:00:10Z')]);
    expect(one).toEqual({ failuresAfterLastSuccess: 1, lastFailureMs: Date.parse('2026-01-01T00:00:10Z') });
    const two = nextBackoffRecord(one, [], [ended('Failed', '2026-01-01T00:00:30Z'), ended('Failed', '2026-01-01T00:00:20Z')]);
    expect(two).toEqual({ failuresAfterLastSuccess: 3, lastFailureMs: Date.parse('2026-01-01T00:00:30Z') });
    const reset = nextBackoffRecord(
      two,
      [ended('Succeeded', '2026-01-01T00:00:40Z')],
      [ended('Failed', '2026-01-01T00:00:35Z'), ended('Failed', '2026-01-01T00:00:45Z')],
    );
    expect(reset).toEqual({ failuresAfterLastSuccess: 1, lastFailureMs: Date.parse('2026-01-01T00:00:45Z') });
    expect(nextBackoffRecord(two, [ended('Succeeded', '2026-01-01T00:00:40Z')], [])).toEqual({ failuresAfterLastSuccess: 0 });
  });

  it('dates a pod without terminated containers by its Ready=False transition, then deletion, then creation', () => {
    const pod: Pod = { metadata: { creationTimestamp: '2026-01-01T00:00:00Z', deletionTimestamp: '2026-01-01T00:00:05Z' }, spec: { containers: [] } };
    expect(podFinishedMs(pod)).toBe(Date.parse('2026-01-01T00:00:05Z'));
    pod.status = { conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: '2026-01-01T00:00:03Z' }] };
    expect(podFinishedMs(pod)).toBe(Date.parse('2026-01-01T00:00:03Z'));
  });
});
