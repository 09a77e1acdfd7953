import type { ApiObject } from '@svc/api';
import { jsonClone, type FieldError } from '@svc/machinery';
import { trackManagedFields } from '../generic/managed-fields';
import { bumpGeneration } from '../generic/object-meta-rules';
import { checkResourceVersion } from '../generic/preconditions';
import { writeStep, type WriteStep } from '../generic/stepper';
import type { Store } from '../generic/store';
import { prepareUpdateOf } from '../generic/update-targets';
import { validateObject } from '../generic/validation';
import type { WriteState } from '../generic/write-state';
import { mutatingAdmission, validatingAdmission } from './admission-attributes';

/** An update as its steps see it: the stored object, the request's object (a private copy) and what it becomes. */
export interface UpdateWork {
  store: Store;
  w: WriteState;
  current: ApiObject;
  next: ApiObject;
  /** Field errors found along the way, reported with the schema's by the validate step. */
  errors: FieldError[];
}

/**
 * An update of `current` to the request's object, in Kubernetes' order as far as it is observable:
 * the target's strategy prepares it, defaults and managedFields follow, the request's resourceVersion
 * is checked, then mutating admission; only after it the kind's update rules compare the object as
 * it will be stored (defaults applied and admitted: a client that leaves out a defaulted field, or one
 * admission adds back such as DefaultTolerationSeconds' tolerations on a replace, changes nothing),
 * then the kind's BeginUpdate, validation and validating admission.
 */
export const UPDATE_STEPS: readonly WriteStep<UpdateWork>[] = [
  writeStep('prepare for update', (u) => {
    u.w.subject = u.next;
    const prepared = prepareUpdateOf(u.store.definition, u.w.target, u.next, u.current, u.w.name);
    u.next = prepared.next;
    u.errors.push(...prepared.errors);
  }),
  writeStep('default', ({ store, next }) => {
    store.compiled.default(next);
  }),
  writeStep('track managed fields', ({ store, w, current, next }) => {
    if (!w.applied) trackManagedFields(store, current, next, w);
  }),
  writeStep('check resourceVersion', ({ store, w, next, current }) => checkResourceVersion(store.groupResource, w.name, next, current)),
  writeStep('mutating admission', ({ store, w, next, current }) => mutatingAdmission(store, 'UPDATE', w, next, current)),
  writeStep('kind update rules', ({ store, w, next, current, errors }) => {
    // A subresource of the kind's own compares the object as it will be stored, defaults applied.
    const extra = w.target === '' ? undefined : store.definition.strategy.subresources?.[w.target];
    if (extra?.validateUpdate) errors.push(...extra.validateUpdate(next, current));
    if (w.target !== '') return;
    // What mutating admission changed counts as the update's own change, as it does where Kubernetes
    // admits before the strategy prepares the update.
    bumpGeneration(store.definition, next, current);
    errors.push(...(store.definition.strategy.validateUpdate?.(next, current) ?? []));
  }),
  writeStep('begin update', async ({ store, w, next, current }) => {
    if (store.hooks?.beginUpdate !== undefined && w.target === '') {
      w.finish = await store.hooks.beginUpdate(next, current, { dryRun: w.options.dryRun === true });
    }
  }),
  writeStep('validate', ({ store, w, next, errors, current }) => validateObject(store, next, errors, w, current)),
  writeStep('validating admission', ({ store, w, next, current }) => validatingAdmission(store, 'UPDATE', w, next, current)),
];

/** An update to the request's object by a write that may retry it: each round works on its own copy. */
export const UPDATE_COPY: readonly WriteStep<UpdateWork>[] = [
  writeStep('copy the request', (u) => {
    u.next = jsonClone(u.next);
  }),
  ...UPDATE_STEPS,
];

/** The update of `current` to `incoming` (a private copy) by the rules of the write's target, every step run. */
export async function prepareUpdate(store: Store, w: WriteState, current: ApiObject, incoming: ApiObject): Promise<ApiObject> {
  const work: UpdateWork = { store, w, current, next: incoming, errors: [] };
  await w.stepper.run(UPDATE_STEPS, work);
  return work.next;
}
