import type { ControllerManagerOptions } from '@svc/options';
import type { PodMetricsSource } from './pod-metrics-source';

type HpaFlags = Pick<
  ControllerManagerOptions,
  | 'horizontalPodAutoscalerSyncPeriod'
  | 'horizontalPodAutoscalerTolerance'
  | 'horizontalPodAutoscalerDownscaleStabilization'
  | 'horizontalPodAutoscalerCpuInitializationPeriod'
  | 'horizontalPodAutoscalerInitialReadinessDelay'
>;

/** What the horizontal-pod-autoscaler controller takes from the flags (durations in ms). */
export class HorizontalPodAutoscalerOptions {
  constructor(
    /** `--horizontal-pod-autoscaler-sync-period`: how often each autoscaler is worked out again. */
    readonly syncPeriodMs = 15_000,
    /** `--horizontal-pod-autoscaler-tolerance`. */
    readonly tolerance = 0.1,
    /** `--horizontal-pod-autoscaler-downscale-stabilization`. */
    readonly downscaleStabilizationMs = 300_000,
    /** `--horizontal-pod-autoscaler-cpu-initialization-period`. */
    readonly cpuInitializationPeriodMs = 300_000,
    /** `--horizontal-pod-autoscaler-initial-readiness-delay`. */
    readonly initialReadinessDelayMs = 30_000,
    /** Where pods' usage is read; the metrics API through the controller's client when absent. */
    readonly metricsSource?: PodMetricsSource,
    /** Milliseconds since the epoch, for the windows and periods; tests pass a clock they move by hand. */
    readonly now: () => number = Date.now,
  ) {}

  static fromFlags(flags: HpaFlags, overrides: { metricsSource?: PodMetricsSource; now?: () => number } = {}): HorizontalPodAutoscalerOptions {
    return new HorizontalPodAutoscalerOptions(
      flags.horizontalPodAutoscalerSyncPeriod,
      flags.horizontalPodAutoscalerTolerance,
      flags.horizontalPodAutoscalerDownscaleStabilization,
      flags.horizontalPodAutoscalerCpuInitializationPeriod,
      flags.horizontalPodAutoscalerInitialReadinessDelay,
      overrides.metricsSource,
      overrides.now,
    );
  }
}
