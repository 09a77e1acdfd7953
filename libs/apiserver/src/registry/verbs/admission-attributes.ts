import type { ApiObject } from '@svc/api';
import type { AdmissionAttributes, AdmissionOperation } from '../../admission';
import type { Store } from '../generic/store';
import type { WriteState } from '../generic/write-state';

/** Kubernetes' admission.Attributes of one write, as the plugins see it. */
export function admissionAttributes(store: Store, operation: AdmissionOperation, w: WriteState, object: ApiObject, oldObject?: ApiObject): AdmissionAttributes {
  return {
    operation,
    definition: store.definition,
    namespace: store.scope(w.namespace),
    name: w.name,
    subresource: w.target,
    object,
    oldObject,
    dryRun: w.options.dryRun === true,
    warnings: w.warnings,
    user: w.options.user,
    auditAnnotations: w.options.auditAnnotations,
  };
}

/** The mutating plugins' pass over a write (they may change `object`). */
export function mutatingAdmission(store: Store, operation: AdmissionOperation, w: WriteState, object: ApiObject, oldObject?: ApiObject): Promise<void> {
  return store.context.admission.admit(admissionAttributes(store, operation, w, object, oldObject));
}

/** The validating plugins' pass over a write, the last word before it is stored. */
export function validatingAdmission(store: Store, operation: AdmissionOperation, w: WriteState, object: ApiObject, oldObject?: ApiObject): Promise<void> {
  return store.context.admission.validate(admissionAttributes(store, operation, w, object, oldObject));
}
