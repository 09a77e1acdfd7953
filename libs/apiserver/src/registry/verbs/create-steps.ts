import { randomUUID } from 'node:crypto';
import type { ApiObject } from '@svc/api';
import { jsonClone } from '@svc/machinery';
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
 * What Kubernetes' create handler does before admission: the body decoded with the kind's defaults,
 * the object put in the request's namespace, and the managedFields of its writer (apply has its own).
 */
export const DECODE_CREATE: readonly WriteStep<CreateWork>[] = [
  writeStep('default', ({ store, w, object }) => {
    w.subject = object;
    store.compiled.default(object);
  }),
  writeStep('set namespace', ({ store, w, object }) => {
    const meta = (object.metadata ??= {});
    if (store.definition.namespaced) meta.namespace = store.scope(w.namespace);
    else delete meta.namespace;
  }),
  writeStep('track managed fields', ({ store, w, object }) => {
    if (!w.applied) trackManagedFields(store, undefined, object, w);
  }),
];

/**
 * The mutating admission of a create. As in Kubernetes, it sees the defaulted object before the
 * server sets its uid, creation time and initial status, and what it changes is not tracked as
 * anyone's field.
 */
export const ADMIT_CREATE: WriteStep<CreateWork> = writeStep('mutating admission', ({ store, w, object }) => mutatingAdmission(store, 'CREATE', w, object));

/**
 * The store's part, once per name tried (Kubernetes' BeforeCreate and what follows it): server-set
 * metadata (uid, creation time, generation) and the kind's PrepareForCreate (its initial status, a
 * pod's QoS class of the defaulted and admitted pod), the kind's BeginCreate (its finish kept for the
 * end of the attempt), validation, and validating admission, the last word before the store.
 */
export const VALIDATE_CREATE: readonly WriteStep<CreateWork>[] = [
  writeStep('prepare for create', ({ store, w, object }) => {
    w.subject = object;
    prepareForCreate(store.definition, object, { namespace: store.scope(w.namespace), now: w.now, uid: randomUUID(), user: w.options.user });
  }),
  writeStep('begin create', async ({ store, w, object }) => {
    if (store.hooks?.beginCreate !== undefined) w.finish = await store.hooks.beginCreate(object, { dryRun: w.options.dryRun === true });
  }),
  writeStep('validate', ({ store, w, object }) => validateObject(store, object, [], w)),
  writeStep('validating admission', ({ store, w, object }) => validatingAdmission(store, 'CREATE', w, object)),
];

/** Every step of a create whose name comes from the path (a PUT that creates, an apply that creates). */
export const CREATE_NAMED: readonly WriteStep<CreateWork>[] = [...DECODE_CREATE, ADMIT_CREATE, ...VALIDATE_CREATE];

/** A create of the request's object by a write that may retry it: each round works on its own copy. */
export const CREATE_COPY: readonly WriteStep<CreateWork>[] = [
  writeStep('copy the request', (c) => {
    c.object = jsonClone(c.object);
  }),
  ...CREATE_NAMED,
];
