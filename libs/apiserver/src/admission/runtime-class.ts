import { newForbidden } from '@svc/machinery';
import type { AdmissionPlugin } from './admission';
import { admittedName, isPodCreate, podSpecOf } from './pod-admission';

/**
 * Kubernetes' RuntimeClass admission plugin (on by default) for Pods: a pod naming a RuntimeClass
 * gets that class's overhead and scheduling, and one naming a class that does not exist is refused.
 * RuntimeClass objects are not served here, so every named class is unknown: such a pod is refused
 * as Kubernetes refuses it, rather than stored for a node agent that has no such runtime handler.
 */
export function runtimeClassAdmission(): AdmissionPlugin {
  return {
    name: 'RuntimeClass',
    admit(attributes) {
      if (!isPodCreate(attributes)) return;
      const className = podSpecOf(attributes.object).runtimeClassName;
      if (typeof className !== 'string' || className === '') return;
      throw newForbidden({ group: '', resource: 'pods' }, admittedName(attributes), `pod rejected: RuntimeClass "${className}" not found`);
    },
  };
}
