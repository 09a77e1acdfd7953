import { formatDuration } from '../flags/duration';
import type { GivenFlags, Problem } from '../flag-set/flag-set';

/** Cross-flag rules both processes use. */

/** Two flags that only make sense together (a certificate and its key). */
export function givenTogether(first: string, second: string) {
  return (_: unknown, given: GivenFlags): Problem | undefined => {
    if (given.has(first) && !given.has(second)) return { flag: first, reason: `--${second} must be given with --${first}` };
    if (given.has(second) && !given.has(first)) return { flag: second, reason: `--${first} must be given with --${second}` };
    return undefined;
  };
}

/** The `--leader-elect*` durations a process's options carry. */
export interface LeaderElectionDurations {
  leaderElect: boolean;
  leaderElectLeaseDuration: number;
  leaderElectRenewDeadline: number;
  leaderElectRetryPeriod: number;
}

/** client-go's checks of the leader election durations: renew deadline within the lease, retry period within the deadline. */
export function leaderElectionDurations(o: LeaderElectionDurations): Problem | undefined {
  if (!o.leaderElect) return undefined;
  if (o.leaderElectRenewDeadline > o.leaderElectLeaseDuration) {
    return {
      flag: 'leader-elect-renew-deadline',
      value: formatDuration(o.leaderElectRenewDeadline),
      reason: `must be less than or equal to --leader-elect-lease-duration (${formatDuration(o.leaderElectLeaseDuration)})`,
    };
  }
  if (o.leaderElectRetryPeriod <= 0) {
    return { flag: 'leader-elect-retry-period', value: formatDuration(o.leaderElectRetryPeriod), reason: 'must be greater than zero' };
  }
  if (o.leaderElectRetryPeriod >= o.leaderElectRenewDeadline) {
    return {
      flag: 'leader-elect-retry-period',
      value: formatDuration(o.leaderElectRetryPeriod),
      reason: `must be less than --leader-elect-renew-deadline (${formatDuration(o.leaderElectRenewDeadline)})`,
    };
  }
  return undefined;
}
