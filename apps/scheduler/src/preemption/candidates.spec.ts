import { podInfoOf } from '../cache/pod-info';
import { testPod } from '../testing/plugin-fixtures';
import { earliestStartOfMostImportant, pickCandidate, type Candidate } from './candidates';

const NOW = Date.parse('2026-01-01T12:00:00Z');

/** A victim of this priority, started this many minutes ago (never, when undefined). */
function victim(name: string, priority: number, startedMinutesAgo?: number) {
  const pod = testPod(name, { node: 'n', spec: { priority } });
  if (startedMinutesAgo !== undefined) pod.status = { startTime: new Date(NOW - startedMinutesAgo * 60_000).toISOString() };
  return podInfoOf(pod);
}

function candidate(nodeName: string, victims: ReturnType<typeof victim>[], pdbViolations = 0): Candidate {
  return { nodeName, victims: { pods: victims, pdbViolations } };
}

const pick = (...candidates: Candidate[]) => pickCandidate(candidates, NOW)?.nodeName;

describe('picking the node to preempt on', () => {
  it('takes the one candidate there is, and none of none', () => {
    expect(pick(candidate('only', [victim('a', 1)]))).toBe('only');
    expect(pick()).toBeUndefined();
  });

  it('prefers the fewest PodDisruptionBudget violations over everything else', () => {
    expect(pick(candidate('violates', [victim('a', 1)], 1), candidate('clean', [victim('b', 50), victim('c', 40)], 0))).toBe('clean');
  });

  it('then the lowest priority of the most important victim', () => {
    expect(pick(candidate('high', [victim('a', 9)]), candidate('low', [victim('b', 5), victim('c', 5), victim('d', 5)]))).toBe('low');
  });

  it('then the lowest sum of priorities, counting each victim above the lowest int32', () => {
    expect(pick(candidate('more', [victim('a', 5), victim('b', 4)]), candidate('less', [victim('c', 5), victim('d', 1)]))).toBe('less');
    // Negative priorities: two victims still sum higher than one, as Kubernetes shifts them above zero.
    expect(pick(candidate('two', [victim('a', -5), victim('b', -5)]), candidate('one', [victim('c', -5)]))).toBe('one');
  });

  it('then the fewest victims', () => {
    expect(pick(candidate('two', [victim('a', 0), victim('b', 0)]), candidate('one', [victim('c', 0)]))).toBe('one');
  });

  it('then the latest start among the most important victims, then the first', () => {
    const early = candidate('early', [victim('a', 3, 60), victim('b', 1, 1)]);
    const late = candidate('late', [victim('c', 3, 10), victim('d', 1, 120)]);
    expect(pick(early, late)).toBe('late');
    expect(pick(candidate('first', [victim('e', 3, 10)]), candidate('second', [victim('f', 3, 10)]))).toBe('first');
  });

  it('reads the earliest start among the victims of the highest priority only', () => {
    const victims = { pods: [victim('a', 3, 10), victim('b', 3, 30), victim('c', 1, 500)], pdbViolations: 0 };
    expect(earliestStartOfMostImportant(victims, NOW)).toBe(NOW - 30 * 60_000);
    expect(earliestStartOfMostImportant({ pods: [victim('d', 1)], pdbViolations: 0 }, NOW)).toBe(NOW);
  });
});
