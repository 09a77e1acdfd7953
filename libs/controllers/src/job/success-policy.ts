import type { JobSpec } from '@svc/api';
import { countOf, parseIndexes, type OrderedIntervals } from './completion-indexes';

type SuccessPolicy = NonNullable<JobSpec['successPolicy']>;

/** How many of `required` are among `succeeded`: both ordered, walked once. */
function overlapCount(required: OrderedIntervals, succeeded: OrderedIntervals): number {
  let contains = 0;
  let r = 0;
  let s = 0;
  while (r < required.length && s < succeeded.length) {
    const overlap = Math.min(required[r].last, succeeded[s].last) - Math.max(required[r].first, succeeded[s].first) + 1;
    if (overlap > 0) contains += overlap;
    if (succeeded[s].last < required[r].last) s++;
    else r++;
  }
  return contains;
}

/**
 * Kubernetes' matchSuccessPolicy: the message of the SuccessCriteriaMet condition when a rule is met
 * by the succeeded indexes of an Indexed Job, else undefined. A rule with succeededIndexes needs all
 * of them, or succeededCount of them; one with only succeededCount needs that many indexes.
 */
export function matchSuccessPolicy(policy: SuccessPolicy | undefined, completions: number, succeeded: OrderedIntervals): string | undefined {
  if (!policy || succeeded.length === 0) return undefined;
  for (const [index, rule] of (policy.rules ?? []).entries()) {
    if (rule.succeededIndexes !== undefined) {
      const required = parseIndexes(rule.succeededIndexes, completions);
      // A rule whose indexes cannot be read matches nothing.
      if (required.length === 0) continue;
      const contains = overlapCount(required, succeeded);
      if (contains === countOf(required) || (rule.succeededCount !== undefined && contains >= rule.succeededCount)) {
        return `Matched rules at index ${index}`;
      }
    } else if (rule.succeededCount !== undefined && countOf(succeeded) >= rule.succeededCount) {
      return `Matched rules at index ${index}`;
    }
  }
  return undefined;
}
