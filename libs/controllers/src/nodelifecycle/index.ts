import type { ControllerDescriptor } from '../controller-descriptor';
import { NodeHealthMonitor } from './node-health-monitor';
import { NodeLifecycleOptions } from './node-lifecycle-options';
import { NodeTaintReconciler } from './node-taint-reconciler';
import { TaintEvictionReconciler } from './taint-eviction-reconciler';

export { NodeHealthMonitor, computeZoneState, type ZoneState } from './node-health-monitor';
export { NodeLifecycleOptions } from './node-lifecycle-options';
export { NodeTaintReconciler } from './node-taint-reconciler';
export { TaintEvictionReconciler } from './taint-eviction-reconciler';

/**
 * Node health (Kubernetes' node lifecycle controller with taint-based eviction): silent nodes turn
 * Unknown and are tainted NoExecute at the eviction rates, condition taints follow the conditions,
 * and pods leave tainted nodes as their tolerations say.
 */
export const nodeLifecycleController: ControllerDescriptor = {
  name: 'nodelifecycle',
  reconcilers: [NodeTaintReconciler, TaintEvictionReconciler],
  runnables: [NodeHealthMonitor],
  options: (flags) => [new NodeLifecycleOptions(flags)],
  concurrency: () => ({ 'node-lifecycle-taints': 8, 'taint-eviction': 8 }),
};
