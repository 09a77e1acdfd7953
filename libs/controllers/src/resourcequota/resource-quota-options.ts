import type { ControllerManagerOptions } from '@svc/options';

/** What the resource quota controller takes from the flags. */
export class ResourceQuotaOptions {
  constructor(
    /** `--resource-quota-sync-period`: how often every quota's usage is recalculated from scratch. */
    readonly syncPeriodMs = 300_000,
  ) {}

  static fromFlags(flags: Pick<ControllerManagerOptions, 'resourceQuotaSyncPeriod'>): ResourceQuotaOptions {
    return new ResourceQuotaOptions(flags.resourceQuotaSyncPeriod);
  }
}
