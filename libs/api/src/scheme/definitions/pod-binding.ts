import { isRecord } from '@svc/machinery';
import { BINDING_GVK, BindingSchema } from '../../kinds/core/binding';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject } from '../kind-definition';
import type { SubresourceCreate } from '../kind-strategy';

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

/** The pod's `binding` subresource: a Binding naming the node the pod goes to. */
export const podBinding: SubresourceCreate = {
  kind: BINDING_GVK,
  schema: BindingSchema,
  validate: validateBinding,
};
