import { fieldForbidden, isJsonObject, newInvalid, type FieldError } from '@svc/machinery';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';
import { heldPodSpec } from './pod-admission';

const CONTAINER_LISTS = ['initContainers', 'containers', 'ephemeralContainers'] as const;

/** `privileged: true` containers of a pod spec, as field errors below `field`. */
function privilegedContainers(spec: Record<string, unknown>, field: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const list of CONTAINER_LISTS) {
    const containers = spec[list];
    if (!Array.isArray(containers)) continue;
    containers.forEach((container: unknown, i) => {
      const context = isJsonObject(container) ? container.securityContext : undefined;
      if (isJsonObject(context) && context.privileged === true) {
        errors.push(fieldForbidden(`${field}.${list}[${i}].securityContext.privileged`, 'disallowed by cluster policy'));
      }
    });
  }
  return errors;
}

/**
 * `--allow-privileged=false` (the default), as Kubernetes' validation applies it: a pod, or the pod
 * template of a workload (any kind whose strategy names a pod spec), with a privileged container is
 * invalid on create and update.
 */
export function privilegedContainersDenied(): AdmissionPlugin {
  return {
    name: 'PrivilegedContainers',
    validate(a: AdmissionAttributes): void {
      if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return;
      if (a.subresource !== '' && a.subresource !== 'ephemeralcontainers') return;
      const held = heldPodSpec(a.definition, a.object);
      if (held === undefined) return;
      const errors = privilegedContainers(held.spec, held.field);
      if (errors.length > 0) throw newInvalid({ group: a.definition.group, kind: a.definition.kind }, a.name, errors);
    },
  };
}
