import { JOB_COMPLETION_INDEX_ANNOTATION, type Pod } from '@svc/api';

/** One run of consecutive completion indexes, both ends included. */
export interface IndexInterval {
  first: number;
  last: number;
}

/** Disjoint, increasing, non-adjacent runs of indexes: the form `status.completedIndexes` is written in. */
export type OrderedIntervals = readonly IndexInterval[];

/** A pod's completion index, or -1 when it has none or it is not a decimal number (Kubernetes' unknownCompletionIndex). */
export function completionIndexOf(pod: Pod): number {
  const value = pod.metadata?.annotations?.[JOB_COMPLETION_INDEX_ANNOTATION];
  if (value === undefined || !/^[0-9]+$/.test(value)) return -1;
  const index = Number(value);
  return Number.isSafeInteger(index) ? index : -1;
}

/** A pod's index when it is one of the Job's (below `completions`), else -1. */
export function validCompletionIndex(pod: Pod, completions: number): number {
  const index = completionIndexOf(pod);
  return index >= 0 && index < completions ? index : -1;
}

/**
 * Parses a list of indexes and ranges (`1,3-5`) written by a controller, leniently as Kubernetes'
 * parseIndexesFromString does: a malformed part, or one at or past `completions`, is skipped
 * (clipped for a range), so that a corrupted status never stops the Job.
 */
export function parseIndexes(text: string | undefined, completions: number): IndexInterval[] {
  if (!text) return [];
  const parsed: IndexInterval[] = [];
  for (const part of text.split(',')) {
    const match = /^([0-9]+)(?:-([0-9]+))?$/.exec(part);
    if (!match) continue;
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : Math.min(Number(match[2]), completions - 1);
    if (first >= completions || last < first) continue;
    parsed.push({ first, last });
  }
  return mergeIntervals(parsed, []);
}

/** The union of two lists of intervals, ordered, overlapping and adjacent runs joined. */
export function mergeIntervals(a: readonly IndexInterval[], b: readonly IndexInterval[]): IndexInterval[] {
  const all = [...a, ...b].sort((x, y) => x.first - y.first);
  const merged: IndexInterval[] = [];
  for (const interval of all) {
    const last = merged[merged.length - 1];
    if (last && interval.first <= last.last + 1) last.last = Math.max(last.last, interval.last);
    else merged.push({ ...interval });
  }
  return merged;
}

/** `intervals` with each of `indexes` added. */
export function withIndexes(intervals: OrderedIntervals, indexes: Iterable<number>): IndexInterval[] {
  return mergeIntervals(
    intervals,
    [...indexes].map((i) => ({ first: i, last: i })),
  );
}

export function countOf(intervals: OrderedIntervals): number {
  let total = 0;
  for (const { first, last } of intervals) total += last - first + 1;
  return total;
}

export function hasIndex(intervals: OrderedIntervals | undefined, index: number): boolean {
  if (!intervals) return false;
  // Binary search: a Job may have 100,000 indexes in a few intervals or many.
  let lo = 0;
  let hi = intervals.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const { first, last } = intervals[mid];
    if (index < first) hi = mid - 1;
    else if (index > last) lo = mid + 1;
    else return true;
  }
  return false;
}

/** As Kubernetes writes them: `0,2-4,6,7` (a run of two is written as two numbers). */
export function formatIndexes(intervals: OrderedIntervals): string {
  return intervals.map(({ first, last }) => (last === first ? `${first}` : last === first + 1 ? `${first},${last}` : `${first}-${last}`)).join(',');
}

/**
 * The first `count` indexes below `completions` that are in none of `taken` (Kubernetes'
 * firstPendingIndexes): the indexes the next pods of an Indexed Job get.
 */
export function firstPendingIndexes(taken: OrderedIntervals, count: number, completions: number): number[] {
  const result: number[] = [];
  if (count <= 0) return result;
  let candidate = 0;
  for (const { first, last } of taken) {
    for (; candidate < completions && result.length < count && candidate < first; candidate++) result.push(candidate);
    if (candidate <= last) candidate = last + 1;
  }
  for (; candidate < completions && result.length < count; candidate++) result.push(candidate);
  return result;
}
