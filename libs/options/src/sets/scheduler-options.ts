import { defineFlagSet, type Rule } from '../flag-set/flag-set';
import { parseFlagSet, type ParseOutcome } from '../flag-set/parse-flag-set';
import { SCHEDULER_FLAGS, type SchedulerOptions } from './scheduler-flags';
import { givenTogether, leaderElectionDurations } from './shared-rules';

type SchedulerRule = Rule<SchedulerOptions>;

const backoffs: SchedulerRule = (o) =>
  o.podMaxBackoffSeconds < o.podInitialBackoffSeconds
    ? { flag: 'pod-max-backoff-seconds', reason: `must be greater than or equal to --pod-initial-backoff-seconds (${o.podInitialBackoffSeconds})` }
    : undefined;

export const schedulerFlagSet = defineFlagSet(SCHEDULER_FLAGS, [givenTogether('tls-cert-file', 'tls-private-key-file'), leaderElectionDurations, backoffs]);

/** Parses the scheduler's argv (without node and script). Throws FlagError with a one-line message. */
export function parseSchedulerOptions(argv: readonly string[]): ParseOutcome<SchedulerOptions> {
  return parseFlagSet(schedulerFlagSet, argv);
}
