import type { ControllerDescriptor } from '../controller-descriptor';
import { HorizontalPodAutoscalerOptions } from './horizontal-pod-autoscaler-options';
import { HORIZONTAL_POD_AUTOSCALER_RECONCILER_NAME, HorizontalPodAutoscalerReconciler } from './horizontal-pod-autoscaler-reconciler';

export { HorizontalPodAutoscalerReconciler, HPA_EVENT_COMPONENT } from './horizontal-pod-autoscaler-reconciler';
export { HorizontalPodAutoscalerOptions } from './horizontal-pod-autoscaler-options';
export { MetricsApiPodMetricsSource, PodMetricsSource, type ContainerMetrics, type PodMetrics } from './pod-metrics-source';
export { ReplicaCalculator, type ReplicaCalculatorSettings } from './replica-calculator';
export { ScalingHistory } from './scaling-history';

/** Kubernetes' default of --concurrent-horizontal-pod-autoscaler-syncs, a flag spec 2 does not list. */
const HPA_WORKERS = 5;

/**
 * Scales the targets of HorizontalPodAutoscalers through their scale subresource, on the usage the
 * resource metrics API (metrics.k8s.io) reports, with the --horizontal-pod-autoscaler-* flags.
 */
export const horizontalPodAutoscalerController: ControllerDescriptor = {
  name: 'horizontalpodautoscaling',
  reconcilers: [HorizontalPodAutoscalerReconciler],
  options: (flags) => [HorizontalPodAutoscalerOptions.fromFlags(flags)],
  concurrency: () => ({ [HORIZONTAL_POD_AUTOSCALER_RECONCILER_NAME]: HPA_WORKERS }),
};
