import type { ApiObject, KindDefinition } from '@svc/api';
import { isJsonObject } from '@svc/machinery';
import type { AdmissionAttributes } from './admission';

/** Whether the request creates a Pod (the main resource, not a subresource). */
export function isPodCreate(attributes: AdmissionAttributes): boolean {
  const def = attributes.definition;
  return attributes.operation === 'CREATE' && attributes.subresource === '' && def.group === '' && def.resource === 'pods';
}

export function isPodUpdate(attributes: AdmissionAttributes): boolean {
  const def = attributes.definition;
  return attributes.operation === 'UPDATE' && attributes.subresource === '' && def.group === '' && def.resource === 'pods';
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

/** The pod spec an object holds, as its kind's strategy places it (see KindStrategy.podSpec). */
export interface HeldPodSpec {
  spec: Record<string, unknown>;
  /** The annotations of the pod, or of the template the pods are made from. */
  annotations: Record<string, unknown>;
  /** Whether the spec is a template of pods (a workload's) rather than the pod's own. */
  template: boolean;
  /** The spec's field path, as errors print it (`spec`, `spec.template.spec`). */
  field: string;
}

function at(object: unknown, path: readonly string[]): Record<string, unknown> | undefined {
  let value = object;
  for (const key of path) value = isJsonObject(value) ? value[key] : undefined;
  return isJsonObject(value) ? value : undefined;
}

/** The pod spec `object` holds if its kind holds one; undefined otherwise, or when the object has none. */
export function heldPodSpec(definition: KindDefinition, object: ApiObject | undefined): HeldPodSpec | undefined {
  const place = definition.strategy.podSpec;
  const spec = place && at(object, place.path);
  if (!place || !spec) return undefined;
  const annotations = at(object, [...place.path.slice(0, -1), 'metadata', 'annotations']) ?? {};
  return { spec, annotations, template: place.template, field: place.path.join('.') };
}
