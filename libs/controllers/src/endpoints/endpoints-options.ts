import type { ControllerManagerOptions } from '@svc/options';

/** What the endpoints controller takes from the flags. */
export class EndpointsOptions {
  constructor(
    /** `--endpoint-updates-batch-period` in ms: pod changes within it make one update (0: each at once). */
    readonly batchPeriodMs = 0,
  ) {}

  static fromFlags(flags: Pick<ControllerManagerOptions, 'endpointUpdatesBatchPeriod'>): EndpointsOptions {
    return new EndpointsOptions(flags.endpointUpdatesBatchPeriod ?? 0);
  }
}
