import { SCALE_API_VERSION, type ApiObject, type KindDefinition, type Scale, type ScaleSubresource } from '@svc/api';
import { fieldInvalid, LabelQuery, newBadRequest, newInvalid, type FieldError } from '@svc/machinery';
import { jsonClone } from '@svc/machinery';

/**
 * The `scale` subresource: an `autoscaling/v1` Scale view of an object whose replica count lives at the
 * definition's paths (`.spec.replicas`, `.status.replicas`, and the selector: a LabelSelector object for
 * built-in kinds, a selector string for custom resources).
 */
export function scaleOf(def: KindDefinition, object: ApiObject): Scale {
  const paths = scalePaths(def);
  const meta = object.metadata ?? {};
  const scale: Scale = {
    apiVersion: SCALE_API_VERSION,
    kind: 'Scale',
    metadata: {
      name: meta.name,
      ...(meta.namespace ? { namespace: meta.namespace } : {}),
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
      creationTimestamp: meta.creationTimestamp,
    },
    spec: { replicas: replicasAt(object, paths.specReplicasPath) },
    status: { replicas: replicasAt(object, paths.statusReplicasPath) },
  };
  const selector = paths.labelSelectorPath ? selectorString(def, valueAt(object, pathOf(paths.labelSelectorPath))) : undefined;
  if (selector !== undefined) scale.status!.selector = selector;
  return scale;
}

/**
 * The object with the Scale's `spec.replicas` written to it (a fresh copy). Throws 422 Invalid (kind
 * Scale in group autoscaling) for a replica count that is not a non-negative integer, and 400 when the
 * body is not a Scale.
 */
export function withScale(def: KindDefinition, object: ApiObject, scale: unknown): ApiObject {
  if (typeof scale !== 'object' || scale === null || Array.isArray(scale)) throw newBadRequest('the request body is not a Scale object');
  const typed = scale as Scale;
  if (typed.kind !== undefined && typed.kind !== 'Scale')
    throw newBadRequest(`the kind in the data (${String(typed.kind)}) does not match the expected kind (Scale)`);
  const replicas = typed.spec?.replicas;
  const errors: FieldError[] = [];
  if (replicas !== undefined && (typeof replicas !== 'number' || !Number.isInteger(replicas))) {
    errors.push(fieldInvalid('spec.replicas', replicas, 'must be an integer'));
  } else if (replicas !== undefined && replicas < 0) {
    errors.push(fieldInvalid('spec.replicas', replicas, 'must be greater than or equal to 0'));
  }
  if (errors.length > 0) throw newInvalid({ group: 'autoscaling', kind: 'Scale' }, typed.metadata?.name ?? object.metadata?.name ?? '', errors);
  const next = jsonClone(object);
  setValueAt(next, pathOf(scalePaths(def).specReplicasPath), replicas ?? 0);
  return next;
}

function scalePaths(def: KindDefinition): ScaleSubresource {
  const paths = def.subresources.scale;
  if (paths === undefined) throw new Error(`${def.kind} has no scale subresource`);
  return paths;
}

/** `.spec.replicas` -> [`spec`, `replicas`]. */
function pathOf(jsonPath: string): string[] {
  return jsonPath.split('.').filter((part) => part !== '');
}

function valueAt(object: unknown, path: readonly string[]): unknown {
  let value = object;
  for (const part of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function setValueAt(object: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = object;
  for (const part of path.slice(0, -1)) {
    const child = node[part];
    if (typeof child !== 'object' || child === null || Array.isArray(child)) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[path[path.length - 1]] = value;
}

function replicasAt(object: ApiObject, jsonPath: string): number {
  const value = valueAt(object, pathOf(jsonPath));
  return typeof value === 'number' && Number.isInteger(value) ? value : 0;
}

function selectorString(def: KindDefinition, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (def.source.type === 'builtin' && typeof value === 'object') {
    // A selector is a LabelSelector, or (the core group's older kinds) a bare map of labels.
    const record = value as Record<string, unknown>;
    const bareMap = !('matchLabels' in record) && !('matchExpressions' in record) && Object.values(record).every((v) => typeof v === 'string');
    try {
      return LabelQuery.fromLabelSelector(bareMap ? { matchLabels: record as Record<string, string> } : value).toString();
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * The object a write of a Scale leaves: its replica count written to the object. A Scale that names a
 * resourceVersion makes it a precondition of the write, as Kubernetes does.
 */
export function scaledObject(def: KindDefinition, current: ApiObject, scale: ApiObject): ApiObject {
  const next = withScale(def, current, scale);
  const rv = scale.metadata?.resourceVersion;
  if (rv) next.metadata = { ...next.metadata, resourceVersion: rv };
  return next;
}
