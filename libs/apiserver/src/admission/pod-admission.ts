import type { ApiObject } from '@svc/api';
import type { AdmissionAttributes } from './admission';

/** Whether the request creates a Pod (the main resource, not a subresource). */
export function isPodCreate(attributes: AdmissionAttributes): boolean {
  const def = attributes.definition;
  return attributes.operation === 'CREATE' && attributes.subresource === '' && def.group === '' && def.resource === 'pods';
}

/** The spec of the Pod being admitted, made an object if it is not one. */
export function podSpecOf(pod: ApiObject | undefined): Record<string, unknown> {
  if (pod === undefined) return {};
  const spec = pod.spec;
  if (typeof spec === 'object' && spec !== null && !Array.isArray(spec)) return spec as Record<string, unknown>;
  return (pod.spec = {});
}

/** The name a refusal names: the object's, or its generateName while the name is not made yet. */
export function admittedName(attributes: AdmissionAttributes): string {
  return attributes.name || attributes.object?.metadata?.generateName || '';
}
