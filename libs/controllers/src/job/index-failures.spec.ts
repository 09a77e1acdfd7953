import type { Job, Pod } from '@svc/api';
import { parseIndexes } from './completion-indexes';
import { calculateFailedIndexes, isIndexFailed, newIndexFailureCounts, podsWithDelayedDeletionPerIndex, remainingIndexBackoffMs } from './index-failures';

function job(spec: Partial<Job['spec']> = {}, status: Job['status'] = {}): Job {
  return {
    metadata: { name: 'j' },
    spec: { completionMode: 'Indexed', completions: 4, backoffLimitPerIndex: 1, template: { spec: { containers: [] } }, ...spec },
    status,
  };
}

function failedPod(uid: string, index: number, failures: number, exitCode = 1, finishedAt = '2026-01-01T00:00:10Z', ignored = 0): Pod {
  return {
    metadata: {
      uid,
      annotations: {
        'batch.kubernetes.io/job-completion-index': String(index),
        'batch.kubernetes.io/job-index-failure-count': String(failures),
        ...(ignored ? { 'batch.kubernetes.io/job-index-ignored-failure-count': String(ignored) } : {}),
      },
      finalizers: ['batch.kubernetes.io/job-tracking'],
    },
    spec: { containers: [] },
    status: { phase: 'Failed', containerStatuses: [{ name: 'c', state: { terminated: { exitCode, finishedAt } } }] },
  };
}

describe('failures per index', () => {
  it('fails an index once a pod fails with as many earlier failures as backoffLimitPerIndex allows', () => {
    expect(isIndexFailed(job(), failedPod('a', 0, 0))).toBe(false);
    expect(isIndexFailed(job(), failedPod('a', 0, 1))).toBe(true);
  });

  it('fails an index at once on FailIndex, and never on an ignored failure', () => {
    const policy = {
      rules: [
        { action: 'FailIndex', onExitCodes: { operator: 'In', values: [9] } },
        { action: 'Ignore', onExitCodes: { operator: 'In', values: [7] } },
      ],
    };
    expect(isIndexFailed(job({ podFailurePolicy: policy }), failedPod('a', 0, 0, 9))).toBe(true);
    expect(isIndexFailed(job({ podFailurePolicy: policy }), failedPod('a', 0, 5, 7))).toBe(false);
  });

  it('adds newly failed indexes to status.failedIndexes', () => {
    expect(calculateFailedIndexes(job({}, { failedIndexes: '3' }), [failedPod('a', 1, 1), failedPod('b', 2, 0)])).toEqual(parseIndexes('1,3', 4));
  });

  it('keeps the latest failed pod of each index still to run, whose replacement takes its counts over', () => {
    const older = failedPod('old', 2, 0, 1, '2026-01-01T00:00:05Z');
    const latest = failedPod('new', 2, 1, 1, '2026-01-01T00:00:09Z');
    const delayed = podsWithDelayedDeletionPerIndex(
      job({ backoffLimitPerIndex: 3 }),
      [older, latest, failedPod('done', 1, 0)],
      parseIndexes('1', 4),
      [],
      new Set(),
    );
    expect([...delayed].map(([i, p]) => [i, p.metadata?.uid])).toEqual([[2, 'new']]);
    expect(newIndexFailureCounts(job(), latest)).toEqual({ failures: 2, ignored: 0 });
    const ignoring = job({ podFailurePolicy: { rules: [{ action: 'Ignore', onExitCodes: { operator: 'In', values: [1] } }] } });
    expect(newIndexFailureCounts(ignoring, failedPod('i', 0, 1, 1, undefined, 2))).toEqual({ failures: 1, ignored: 3 });
    expect(newIndexFailureCounts(job(), undefined)).toEqual({ failures: 0, ignored: 0 });
  });

  it('waits 10 s doubling per failure of the index, counted and ignored', () => {
    const end = Date.parse('2026-01-01T00:00:10Z');
    expect(remainingIndexBackoffMs(failedPod('a', 0, 0), end + 4_000)).toBe(6_000);
    expect(remainingIndexBackoffMs(failedPod('a', 0, 1, 1, undefined, 1), end)).toBe(40_000);
    expect(remainingIndexBackoffMs(undefined, end)).toBe(0);
  });
});
