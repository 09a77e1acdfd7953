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
  resourceNamespace: 'svc-system',
};

/**
 * Checks the relations the flag parser enforces (renewDeadline <= leaseDuration, 0 < retryPeriod <
 * renewDeadline), so that flags it accepted never fail here. A leader gives up one retry period
 * before its renew deadline, hence strictly before the lease can expire elsewhere.
 */
export function validateLeaderElectionConfig(config: LeaderElectionConfig): void {
  if (config.resourceLock !== 'leases') throw new Error(`resource lock ${JSON.stringify(config.resourceLock)} is not supported: use "leases"`);
  if (!config.resourceName) throw new Error('the leader election resource name is empty');
  if (!(config.renewDeadlineMs <= config.leaseDurationMs)) throw new Error('the renew deadline must be less than or equal to the lease duration');
  if (!(config.retryPeriodMs > 0)) throw new Error('the retry period must be positive');
  if (!(config.retryPeriodMs < config.renewDeadlineMs)) throw new Error('the retry period must be less than the renew deadline');
}

/** The fields of a parsed controller-manager option set this needs (`ControllerManagerOptions` of `@svc/options`). */
export interface LeaderElectionFlags {
  leaderElect: boolean;
  leaderElectLeaseDuration: number;
  leaderElectRenewDeadline: number;
  leaderElectRetryPeriod: number;
  leaderElectResourceLock: string;
  leaderElectResourceName: string;
  leaderElectResourceNamespace: string;
}

/** Maps the parsed `--leader-elect*` flags (durations in ms) onto the elector's config. */
export function leaderElectionConfigFromFlags(o: LeaderElectionFlags): LeaderElectionConfig {
  return {
    leaderElect: o.leaderElect,
    leaseDurationMs: o.leaderElectLeaseDuration,
    renewDeadlineMs: o.leaderElectRenewDeadline,
    retryPeriodMs: o.leaderElectRetryPeriod,
    resourceLock: o.leaderElectResourceLock as 'leases',
    resourceName: o.leaderElectResourceName,
    resourceNamespace: o.leaderElectResourceNamespace,
  };
}
