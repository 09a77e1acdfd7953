import type { Job } from '@svc/api';
import { LabelQuery } from '@svc/machinery';

// Cached objects are frozen and replaced on every change, so the object itself keys its parsed selector.
const parsed = new WeakMap<Job, LabelQuery | null>();

/** The Job's pod selector, parsed once per cached object; undefined when it cannot be parsed (the Job then selects nothing). */
export function jobSelector(job: Job): LabelQuery | undefined {
  let query = parsed.get(job);
  if (query === undefined) {
    try {
      query = job.spec?.selector ? LabelQuery.fromLabelSelector(job.spec.selector) : null;
    } catch {
      query = null;
    }
    parsed.set(job, query);
  }
  return query ?? undefined;
}
