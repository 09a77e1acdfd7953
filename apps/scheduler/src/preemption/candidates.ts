import { podPriority } from '../cache/pod-info';
import { podStartTime, type Victims } from './victims';

/** A node where evicting `victims` lets the preemptor fit. */
export interface Candidate {
  nodeName: string;
  victims: Victims;
}

/** The sum fits a safe integer: priorities are int32, and each is shifted above zero as Kubernetes shifts it. */
const PRIORITY_SHIFT = 2 ** 31;

/**
 * The start time that ranks a candidate: the earliest start among its victims of the highest
 * priority (Kubernetes' GetEarliestPodStartTime).
 */
export function earliestStartOfMostImportant(victims: Victims, now: number = Date.now()): number {
  let top = -Infinity;
  let earliest = now;
  for (const { pod } of victims.pods) {
    const priority = podPriority(pod);
    const started = podStartTime(pod, now);
    if (priority > top) {
      top = priority;
      earliest = started;
    } else if (priority === top && started < earliest) {
      earliest = started;
    }
  }
  return earliest;
}

/**
 * The node to preempt on (Kubernetes' pickOneNodeForPreemption), each rule deciding only among those
 * the rules before it tied: the fewest PodDisruptionBudget violations; the lowest priority of its
 * most important victim; the lowest sum of victim priorities; the fewest victims; the latest start
 * of its most important victims (evicting what started last loses the least work); then the first.
 * Victims are listed most important first.
 */
export function pickCandidate(candidates: readonly Candidate[], now: number = Date.now()): Candidate | undefined {
  if (candidates.length <= 1) return candidates[0];
  const rules: Array<(c: Candidate) => number> = [
    (c) => -c.victims.pdbViolations,
    (c) => -(c.victims.pods.length > 0 ? podPriority(c.victims.pods[0].pod) : 0),
    (c) => -c.victims.pods.reduce((sum, { pod }) => sum + podPriority(pod) + PRIORITY_SHIFT, 0),
    (c) => -c.victims.pods.length,
    (c) => earliestStartOfMostImportant(c.victims, now),
  ];
  let remaining = candidates;
  for (const score of rules) {
    let best = -Infinity;
    let kept: Candidate[] = [];
    for (const c of remaining) {
      const s = score(c);
      if (s > best) {
        best = s;
        kept = [c];
      } else if (s === best) {
        kept.push(c);
      }
    }
    if (kept.length === 1) return kept[0];
    remaining = kept;
  }
  return remaining[0];
}
