import type { ControllerManagerOptions } from '@svc/options';

type NodeLifecycleFlags = Pick<
  ControllerManagerOptions,
  | 'nodeMonitorPeriod'
  | 'nodeMonitorGracePeriod'
  | 'nodeStartupGracePeriod'
  | 'nodeEvictionRate'
  | 'secondaryNodeEvictionRate'
  | 'largeClusterSizeThreshold'
  | 'unhealthyZoneThreshold'
>;

/** What the node lifecycle controller's monitor takes from the flags (durations in ms, rates in nodes per second). */
export class NodeLifecycleOptions implements NodeLifecycleFlags {
  readonly nodeMonitorPeriod: number;
  readonly nodeMonitorGracePeriod: number;
  readonly nodeStartupGracePeriod: number;
  readonly nodeEvictionRate: number;
  readonly secondaryNodeEvictionRate: number;
  readonly largeClusterSizeThreshold: number;
  readonly unhealthyZoneThreshold: number;

  constructor(flags: NodeLifecycleFlags) {
    this.nodeMonitorPeriod = flags.nodeMonitorPeriod;
    this.nodeMonitorGracePeriod = flags.nodeMonitorGracePeriod;
    this.nodeStartupGracePeriod = flags.nodeStartupGracePeriod;
    this.nodeEvictionRate = flags.nodeEvictionRate;
    this.secondaryNodeEvictionRate = flags.secondaryNodeEvictionRate;
    this.largeClusterSizeThreshold = flags.largeClusterSizeThreshold;
    this.unhealthyZoneThreshold = flags.unhealthyZoneThreshold;
  }
}
