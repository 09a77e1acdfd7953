import {
  applyPatch,
  fieldRequired,
  jsonClone,
  META_GROUP,
  newInvalid,
  newNotFound,
  newUnsupportedMediaType,
  sameApiVersion,
  type FieldError,
  type JsonObject,
} from '@svc/machinery';
import type { ApiObject } from '@svc/api';
import { decodeYamlBody } from '../../decoding/body-decoder';
import { guaranteedUpdate } from '../generic/guaranteed-update';
import type { Store } from '../generic/store';
import { resetFieldsOf } from '../generic/update-targets';
import { writeStep } from '../generic/stepper';
import { fieldValidation } from '../generic/validation';
import { newWriteState, type WriteState, type WriteTarget } from '../generic/write-state';
import type { PatchOptions, WriteResult } from '../types';
import { checkName, checkNamespace, nameMismatch, objectOf } from './body-checks';
import { CREATE_NAMED } from './create-steps';
import { prepareUpdate } from './update-steps';

/**
 * Server-side apply (a PATCH of `application/apply-patch+yaml`) of the object or its `status`: the
 * applied configuration (YAML or JSON) names this object of the kind; field validation; then at each
 * round of the guaranteed update it merges into the stored object by the schema and its managers'
 * fields (the target's reset fields kept as stored), and the result is created (through the create
 * steps) or updated (through the update steps). managedFields come from the merge, not the steps.
 */
export async function applyObject(
  store: Store,
  namespace: string,
  name: string,
  body: Buffer,
  options: PatchOptions,
  target: WriteTarget,
): Promise<WriteResult> {
  const manager = options.fieldManager ?? '';
  if (manager === '') throw patchOptionsInvalid([fieldRequired('fieldManager', 'is required for apply patch')]);
  if (target !== '' && target !== 'status') throw newUnsupportedMediaType(['application/json-patch+json', 'application/merge-patch+json']);
  const w = newWriteState(store, namespace, name, target, options);
  w.applied = true;
  const decoded = await decodeYamlBody(body);
  const applied = appliedObject(store, decoded.value, namespace, name);
  await w.stepper.run([fieldValidation(decoded.duplicateFields)], { store, w, object: applied });
  return guaranteedUpdate(store, w, async (current) => {
    if (current === null && target !== '') throw newNotFound(store.groupResource, name);
    const work: MergeWork = { store, w, current, applied, manager, force: options.force === true, object: applied };
    await w.stepper.run([MERGE], work);
    const object = work.object;
    if (current !== null) return { kind: 'update', object: await prepareUpdate(store, w, current, object), current };
    checkName(object, name);
    await w.stepper.run(CREATE_NAMED, { store, w, object });
    return { kind: 'create', object };
  });
}

/** An apply's merge as its step sees it: the stored object (none for a create), the applied configuration, and the merged object. */
interface MergeWork {
  store: Store;
  w: WriteState;
  current: ApiObject | null;
  applied: ApiObject;
  manager: string;
  force: boolean;
  object: ApiObject;
}

/** The applied configuration merged into the stored object (or into nothing, for a create), with its managedFields. */
const MERGE = writeStep<MergeWork>('merge the applied configuration', (m) => {
  m.object = merged(m.store, m.w, m.current, m.applied, m.manager, m.force);
});

/** The applied configuration as an object of the kind that names this object, or none. */
function appliedObject(store: Store, value: unknown, namespace: string, name: string): ApiObject {
  const applied = objectOf(store.definition, value);
  // A configuration applied through either name of the group is this group's.
  if (typeof applied.apiVersion === 'string' && applied.apiVersion !== store.storedApiVersion && sameApiVersion(applied.apiVersion, store.storedApiVersion)) {
    applied.apiVersion = store.storedApiVersion;
  }
  // An applied configuration that names an object names this one: an empty name is no exception.
  const appliedName = applied.metadata?.name;
  if (appliedName !== undefined && appliedName !== name) throw nameMismatch(String(appliedName), name);
  checkNamespace(store.definition, applied, namespace);
  return applied;
}

/** The applied configuration merged into the stored object (or into nothing, for a create), with its managedFields. */
function merged(store: Store, w: WriteState, current: ApiObject | null, applied: ApiObject, manager: string, force: boolean): ApiObject {
  const result = applyPatch({
    live: current === null ? undefined : (current as JsonObject),
    applied: jsonClone(applied),
    manager,
    force,
    apiVersion: store.storedApiVersion,
    kind: store.definition.kind,
    subresource: w.target || undefined,
    schema: store.compiled.schema,
    now: w.now,
    resetFields: resetFieldsOf(store.definition, w.target),
  });
  return result.object;
}

/** A PatchOptions refused as a whole (422 of meta.k8s.io PatchOptions). */
export function patchOptionsInvalid(errors: FieldError[]): Error {
  return newInvalid({ group: META_GROUP, kind: 'PatchOptions' }, '', errors);
}
