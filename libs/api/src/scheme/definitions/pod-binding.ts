import { newConflict, isRecord } from '@svc/machinery';
import { BINDING_GVK, BindingSchema } from '../../kinds/core/binding';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject } from '../kind-definition';
import type { SubresourceCreate } from '../kind-strategy';

const BINDING_RESOURCE = { group: '', resource: 'pods/binding' };

/** Kubernetes' ValidatePodBinding, with the types the decoder would have refused checked too. */
function validateBinding(body: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  const target = body.target;
  if (!isRecord(target)) return [fieldErrors.required('target', '')];
  if (target.kind !== undefined && target.kind !== '' && target.kind !== 'Node') {
    errors.push(fieldErrors.notSupported('target.kind', target.kind, ['Node', '<empty>']));
  }
  if (typeof target.name !== 'string' || target.name === '') errors.push(fieldErrors.required('target.name', ''));
  const annotations = body.metadata?.annotations as unknown;
  if (annotations !== undefined && (!isRecord(annotations) || Object.values(annotations).some((v) => typeof v !== 'string'))) {
    errors.push(fieldErrors.typeInvalid('metadata.annotations', annotations, 'must be a map of strings'));
  }
  return errors;
}

function conditionsOf(status: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(status.conditions) ? (status.conditions as unknown[]).filter(isRecord) : [];
}

/**
 * Kubernetes' BindingREST: the pod takes the target node as `spec.nodeName`, the Binding's annotations,
 * and `PodScheduled=True`. A pod being deleted, already bound, still gated, or not the one the Binding's
 * uid and resourceVersion name answers 409 Conflict.
 */
function bindPod(body: ApiObject, current: ApiObject, { now }: { now: Date }): ApiObject {
  const name = current.metadata?.name ?? '';
  const refuse = (reason: string) => newConflict(BINDING_RESOURCE, name, reason);
  const meta = current.metadata ?? {};
  if (meta.deletionTimestamp) throw refuse(`pod ${name} is being deleted, cannot be assigned to a host`);
  const wantedUid = body.metadata?.uid;
  if (wantedUid && wantedUid !== meta.uid) {
    throw refuse(`Precondition failed: UID in precondition: ${wantedUid}, UID in object meta: ${meta.uid ?? ''}`);
  }
  const wantedVersion = body.metadata?.resourceVersion;
  if (wantedVersion && wantedVersion !== meta.resourceVersion) {
    throw refuse(`Precondition failed: ResourceVersion in precondition: ${wantedVersion}, ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`);
  }
  const spec = isRecord(current.spec) ? current.spec : {};
  if (typeof spec.nodeName === 'string' && spec.nodeName !== '') throw refuse(`pod ${name} is already assigned to node ${JSON.stringify(spec.nodeName)}`);
  if (Array.isArray(spec.schedulingGates) && spec.schedulingGates.length > 0) throw refuse(`pod ${name} has non-empty .spec.schedulingGates`);

  const nodeName = (body.target as { name: string }).name;
  const annotations = { ...(meta.annotations ?? {}), ...(body.metadata?.annotations ?? {}) };
  const status = isRecord(current.status) ? current.status : {};
  const conditions = conditionsOf(status);
  const scheduled = conditions.find((c) => c.type === 'PodScheduled');
  const transitioned = scheduled?.status !== 'True';
  const condition = {
    ...(transitioned ? {} : scheduled),
    type: 'PodScheduled',
    status: 'True',
    lastTransitionTime: transitioned ? now.toISOString().replace(/\.\d{3}Z$/, 'Z') : scheduled?.lastTransitionTime,
  };
  // A Failed-to-schedule reason and message belong to the False condition only.
  if (transitioned) {
    delete (condition as Record<string, unknown>).reason;
    delete (condition as Record<string, unknown>).message;
  }
  return {
    ...current,
    metadata: { ...meta, ...(Object.keys(annotations).length > 0 ? { annotations } : {}) },
    spec: { ...spec, nodeName },
    status: { ...status, conditions: scheduled ? conditions.map((c) => (c === scheduled ? condition : c)) : [...conditions, condition] },
  };
}

/** The pod's `binding` subresource. */
export const podBinding: SubresourceCreate = {
  kind: BINDING_GVK,
  schema: BindingSchema,
  validate: validateBinding,
  apply: bindPod,
};
