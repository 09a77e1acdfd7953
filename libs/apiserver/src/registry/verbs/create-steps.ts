import { randomUUID } from 'node:crypto';
import type { ApiObject } from '@svc/api';
import { trackManagedFields } from '../generic/managed-fields';
import { prepareForCreate } from '../generic/object-meta-rules';
import { writeStep, type WriteStep } from '../generic/stepper';
import type { Store } from '../generic/store';
import { validateObject } from '../generic/validation';
import type { WriteState } from '../generic/write-state';
import { mutatingAdmission, validatingAdmission } from './admission-attributes';

/** A create as its steps see it: the kind's store, the write, and the object it makes. */
export interface CreateWork {
  store: Store;
  w: WriteState;
  object: ApiObject;
}

/**
 * A new object's server-set metadata (uid, creation time, generation, initial status: Kubernetes'
 * BeforeCreate), its schema defaults, and the managedFields of its writer (apply has its own).
 */
export const PREPARE_CREATE: readonly WriteStep<CreateWork>[] = [
  writeStep('prepare for create', ({ store, w, object }) => {
    w.subject = object;
    prepareForCreate(store.definition, object, { namespace: store.scope(w.namespace), now: w.now, uid: randomUUID() });
  }),
  writeStep('default', ({ store, object }) => {
    store.compiled.default(object);
  }),
  writeStep('track managed fields', ({ store, w, object }) => {
    if (!w.applied) trackManagedFields(store, undefined, object, w);
  }),
];

/** The mutating admission of a create; what it changes counts as the writer's own. */
export const ADMIT_CREATE: WriteStep<CreateWork> = writeStep('mutating admission', ({ store, w, object }) => mutatingAdmission(store, 'CREATE', w, object));

/** The kind's BeginCreate (its finish kept for the end of the attempt), validation, and validating admission. */
export const VALIDATE_CREATE: readonly WriteStep<CreateWork>[] = [
  writeStep('begin create', async ({ store, w, object }) => {
    if (store.hooks?.beginCreate !== undefined) w.finish = await store.hooks.beginCreate(object, { dryRun: w.options.dryRun === true });
  }),
  writeStep('validate', ({ store, w, object }) => validateObject(store, object, [], w)),
  writeStep('validating admission', ({ store, w, object }) => validatingAdmission(store, 'CREATE', w, object)),
];

/** Every step of a create whose name comes from the path (a PUT that creates, an apply that creates). */
export const CREATE_NAMED: readonly WriteStep<CreateWork>[] = [...PREPARE_CREATE, ADMIT_CREATE, ...VALIDATE_CREATE];
