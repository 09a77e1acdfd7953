import type { ControllerManagerOptions } from '@svc/options';

/** What the endpointslice controller takes from the flags. */
export class EndpointSliceOptions {
  constructor(
    /** `--max-endpoints-per-slice`. */
    readonly maxEndpointsPerSlice = 100,
    /** `--endpointslice-updates-batch-period` in ms (0: each change at once). */
    readonly batchPeriodMs = 0,
  ) {}

  static fromFlags(flags: Pick<ControllerManagerOptions, 'maxEndpointsPerSlice' | 'endpointsliceUpdatesBatchPeriod'>): EndpointSliceOptions {
    return new EndpointSliceOptions(flags.maxEndpointsPerSlice ?? 100, flags.endpointsliceUpdatesBatchPeriod ?? 0);
  }
}
