import type { Scale } from '@svc/api';
import { newNotFound } from '@svc/machinery';
import { guaranteedUpdate } from '../generic/guaranteed-update';
import { scaledObject, scaleOf } from '../generic/scale';
import type { Store } from '../generic/store';
import { fieldValidation } from '../generic/validation';
import { newWriteState, type WriteTarget } from '../generic/write-state';
import type { ObjectInput, WriteOptions, WriteResult } from '../types';
import { checkName, checkNamespace, checkTypeMeta, nameMismatch, objectOf } from './body-checks';
import { CREATE_COPY, type CreateWork } from './create-steps';
import { prepareUpdate, UPDATE_COPY, type UpdateWork } from './update-steps';

/**
 * PUT of the object, of its `status`, or of a subresource its strategy serves (a namespace's
 * finalize): the body checked as this object of the kind, field validation, then the guaranteed
 * update of the stored object through the update steps. A kind that allows it creates the object
 * when there is none (through the create steps, named by the path).
 */
export async function updateObject(
  store: Store,
  namespace: string,
  name: string,
  input: ObjectInput,
  options: WriteOptions = {},
  target: WriteTarget = '',
): Promise<WriteResult> {
  const incoming = objectOf(store.definition, input.value);
  checkTypeMeta(store, incoming);
  checkNamespace(store.definition, incoming, namespace);
  checkName(incoming, name);
  const w = newWriteState(store, namespace, name, target, options);
  await w.stepper.run([fieldValidation(input.duplicateFields ?? [])], { store, w, object: incoming });
  return guaranteedUpdate(store, w, async (current) => {
    if (current !== null) {
      const work: UpdateWork = { store, w, current, next: incoming, errors: [] };
      await w.stepper.run(UPDATE_COPY, work);
      return { kind: 'update', object: work.next, current };
    }
    if (!store.definition.allowCreateOnUpdate || target !== '') throw newNotFound(store.groupResource, name);
    const work: CreateWork = { store, w, object: incoming };
    await w.stepper.run(CREATE_COPY, work);
    return { kind: 'create', object: work.object };
  });
}

/** PUT of the `scale` subresource: the Scale's spec.replicas written to the object, answered as a Scale. */
export async function updateScale(
  store: Store,
  namespace: string,
  name: string,
  input: ObjectInput,
  options: WriteOptions = {},
): Promise<{ scale: Scale; warnings: string[] }> {
  const scale = objectOf(store.definition, input.value);
  if (scale.metadata?.name && scale.metadata.name !== name) throw nameMismatch(scale.metadata.name, name);
  const w = newWriteState(store, namespace, name, 'scale', options);
  const result = await guaranteedUpdate(store, w, async (current) => {
    if (current === null) throw newNotFound(store.groupResource, name);
    return { kind: 'update', object: await prepareUpdate(store, w, current, scaledObject(store.definition, current, scale)), current };
  });
  return { scale: scaleOf(store.definition, result.object), warnings: result.warnings };
}
