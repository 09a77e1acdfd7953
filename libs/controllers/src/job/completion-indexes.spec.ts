import type { Pod } from '@svc/api';
import { completionIndexOf, countOf, firstPendingIndexes, formatIndexes, hasIndex, parseIndexes, withIndexes } from './completion-indexes';

const pod = (index?: string): Pod => ({
  metadata: { annotations: index === undefined ? {} : { 'batch.kubernetes.io/job-completion-index': index } },
  spec: { containers: [] },
});

describe('completion indexes', () => {
  it('reads a pod index from its annotation, -1 when missing or not a number', () => {
    expect(completionIndexOf(pod('3'))).toBe(3);
    expect(completionIndexOf(pod())).toBe(-1);
    expect(completionIndexOf(pod('x'))).toBe(-1);
    expect(completionIndexOf(pod('-1'))).toBe(-1);
  });

  it('writes runs as Kubernetes does: a run of two as two numbers', () => {
    expect(formatIndexes(withIndexes([], [0, 1, 2, 4, 6, 7, 9]))).toBe('0-2,4,6,7,9');
    expect(formatIndexes([])).toBe('');
  });

  it('parses leniently: bad parts skipped, ranges clipped to completions, overlaps joined', () => {
    expect(parseIndexes('0-2,x,3,8-12,20', 10)).toEqual([
      { first: 0, last: 3 },
      { first: 8, last: 9 },
    ]);
    expect(parseIndexes(undefined, 5)).toEqual([]);
  });

  it('counts and finds indexes', () => {
    const intervals = parseIndexes('1-3,7', 10);
    expect(countOf(intervals)).toBe(4);
    expect([0, 1, 3, 4, 7, 8].map((i) => hasIndex(intervals, i))).toEqual([false, true, true, false, true, false]);
  });

  it('gives the lowest indexes taken by nothing, at most count, below completions', () => {
    const taken = parseIndexes('0,2-3,6', 10);
    expect(firstPendingIndexes(taken, 3, 10)).toEqual([1, 4, 5]);
    expect(firstPendingIndexes(taken, 10, 8)).toEqual([1, 4, 5, 7]);
    expect(firstPendingIndexes([], 2, 5)).toEqual([0, 1]);
    expect(firstPendingIndexes(taken, 0, 10)).toEqual([]);
  });
});
