import type { BuiltInController } from '../built-in-controller';
import { NodeHealthMonitor } from './node-health-monitor';
import { NodeTaintReconciler } from './node-taint.reconciler';
import { TaintEvictionReconciler } from './taint-eviction.reconciler';

export { NodeHealthMonitor, computeZoneState, type ZoneState } from './node-health-monitor';
export { NodeTaintReconciler } from './node-taint.reconciler';
export { TaintEvictionReconciler } from './taint-eviction.reconciler';

/**
 * Node health (Kubernetes' node lifecycle controller with taint-based eviction): silent nodes turn
 * Unknown and are tainted NoExecute at the eviction rates, condition taints follow the conditions,
 * and pods leave tainted nodes as their tolerations say.
 */
export const nodeLifecycleController: BuiltInController = {
  name: 'nodelifecycle',
  providers: [NodeHealthMonitor, NodeTaintReconciler, TaintEvictionReconciler],
  concurrency: () => ({ 'node-lifecycle-taints': 8, 'taint-eviction': 8 }),
};
