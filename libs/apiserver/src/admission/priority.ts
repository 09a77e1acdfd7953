import { newForbidden } from '@svc/machinery';
import type { AdmissionPlugin } from './admission';
import { admittedName, isPodCreate, isPodUpdate, podSpecOf } from './pod-admission';

/** The priority classes every cluster has (scheduling/v1's system classes) with their values. */
export const SYSTEM_PRIORITY_CLASSES: Readonly<Record<string, number>> = {
  'system-node-critical': 2000001000,
  'system-cluster-critical': 2000000000,
};
const DEFAULT_PREEMPTION_POLICY = 'PreemptLowerPriority';

/**
 * Kubernetes' Priority admission plugin (plugin/pkg/admission/priority) for Pods: the priority
 * comes from the Pod's priority class (0 with none, as no class is the global default here), with
 * the class's preemption policy (PreemptLowerPriority). PriorityClass objects are not served, so
 * only the system classes are known; another name is refused as Kubernetes refuses an unknown class.
 */
export function priorityAdmission(): AdmissionPlugin {
  return {
    name: 'Priority',
    admit(attributes) {
      if (isPodUpdate(attributes)) {
        // Set on create: an update that leaves them out keeps them (any other change is the pod's update rules' to refuse).
        const spec = podSpecOf(attributes.object);
        const old = (attributes.oldObject?.spec ?? {}) as { priority?: unknown; preemptionPolicy?: unknown };
        if (spec.priority === undefined && old.priority !== undefined) spec.priority = old.priority;
        if (spec.preemptionPolicy === undefined && old.preemptionPolicy !== undefined) spec.preemptionPolicy = old.preemptionPolicy;
        return;
      }
      if (!isPodCreate(attributes)) return;
      const spec = podSpecOf(attributes.object);
      const className = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
      let priority = 0;
      if (className !== '') {
        const value = SYSTEM_PRIORITY_CLASSES[className];
        if (value === undefined)
          throw newForbidden({ group: '', resource: 'pods' }, admittedName(attributes), `no PriorityClass with name ${className} was found`);
        priority = value;
      }
      if (spec.priority !== undefined && spec.priority !== priority) {
        throw newForbidden(
          { group: '', resource: 'pods' },
          admittedName(attributes),
          `the integer value of priority (${JSON.stringify(spec.priority)}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`,
        );
      }
      spec.priority = priority;
      spec.preemptionPolicy ??= DEFAULT_PREEMPTION_POLICY;
    },
  };
}
