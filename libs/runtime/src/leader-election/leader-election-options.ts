/** The spec's leader election flags and their defaults (`--leader-elect-*`). */
export interface LeaderElectionConfig {
  /** `--leader-elect`. */
  leaderElect: boolean;
  /** `--leader-elect-lease-duration`: how long a standby waits from the last renewal it saw before taking over. */
  leaseDurationMs: number;
  /** `--leader-elect-renew-deadline`: a leader that has not renewed for this long stops leading. */
  renewDeadlineMs: number;
  /** `--leader-elect-retry-period`: how often to try to acquire or renew. */
  retryPeriodMs: number;
  /** `--leader-elect-resource-lock`: only `leases` is supported. */
  resourceLock: 'leases';
  /** `--leader-elect-resource-name`. */
  resourceName: string;
  /** `--leader-elect-resource-namespace`. */
  resourceNamespace: string;
}

export const DEFAULT_LEADER_ELECTION: Readonly<Omit<LeaderElectionConfig, 'resourceName'>> = {
  leaderElect: true,
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
  resourceLock: 'leases',
  resourceNamespace: 'kube-system',
};

/** Checks the relations client-go insists on: leaseDuration > renewDeadline > retryPeriod * 1.2. */
export function validateLeaderElectionConfig(config: LeaderElectionConfig): void {
  if (config.resourceLock !== 'leases') throw new Error(`resource lock ${JSON.stringify(config.resourceLock)} is not supported: use "leases"`);
  if (!config.resourceName) throw new Error('the leader election resource name is empty');
  if (!(config.leaseDurationMs > config.renewDeadlineMs)) throw new Error('the lease duration must be greater than the renew deadline');
  if (!(config.renewDeadlineMs > config.retryPeriodMs * 1.2)) throw new Error('the renew deadline must be greater than 1.2 times the retry period');
  if (!(config.retryPeriodMs > 0)) throw new Error('the retry period must be positive');
}
