import { fieldForbidden, newInvalid, sameGroup, type FieldError } from '@svc/machinery';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';

/** Where each served kind that holds a pod spec keeps it. */
const POD_SPECS: ReadonlyArray<{ group: string; resource: string; path: readonly string[] }> = [
  { group: '', resource: 'pods', path: ['spec'] },
  { group: '', resource: 'replicationcontrollers', path: ['spec', 'template', 'spec'] },
  { group: 'apps', resource: 'replicasets', path: ['spec', 'template', 'spec'] },
  { group: 'apps', resource: 'deployments', path: ['spec', 'template', 'spec'] },
];

const CONTAINER_LISTS = ['initContainers', 'containers', 'ephemeralContainers'] as const;

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** `privileged: true` containers of a pod spec, as field errors at `path`. */
function privilegedContainers(spec: Record<string, unknown>, path: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const list of CONTAINER_LISTS) {
    const containers = spec[list];
    if (!Array.isArray(containers)) continue;
    containers.forEach((container, i) => {
      if (record(record(container)?.securityContext)?.privileged === true) {
        errors.push(fieldForbidden(`${path}.${list}[${i}].securityContext.privileged`, 'disallowed by cluster policy'));
      }
    });
  }
  return errors;
}

/**
 * `--allow-privileged=false` (the default), as Kubernetes' validation applies it: a pod, or a pod
 * template of a served workload, with a privileged container is invalid on create and update.
 */
export function privilegedContainersDenied(): AdmissionPlugin {
  return {
    name: 'PrivilegedContainers',
    validate(a: AdmissionAttributes): void {
      if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return;
      if (a.subresource !== '' && a.subresource !== 'ephemeralcontainers') return;
      const target = POD_SPECS.find((s) => s.resource === a.definition.resource && sameGroup(a.definition.group, s.group));
      if (target === undefined) return;
      let spec: unknown = a.object;
      for (const key of target.path) spec = record(spec)?.[key];
      const podSpec = record(spec);
      if (podSpec === undefined) return;
      const errors = privilegedContainers(podSpec, target.path.join('.'));
      if (errors.length > 0) throw newInvalid({ group: a.definition.group, kind: a.definition.kind }, a.name, errors);
    },
  };
}
