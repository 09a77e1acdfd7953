import { failureStatus, generateName, jsonClone, newAlreadyExists, newGenerateNameConflict, StatusError, StatusReasons } from '@svc/machinery';
import { isStorageError } from '@svc/storage';
import type { ApiObject } from '@svc/api';
import type { Store } from '../generic/store';
import { toStatusError } from '../generic/status-mapping';
import { fieldValidation, recoverTypeError } from '../generic/validation';
import { finishWrite, newWriteState, writeResult, type WriteState } from '../generic/write-state';
import type { ObjectInput, WriteOptions, WriteResult } from '../types';
import { checkNamespace, checkTypeMeta, objectOf } from './body-checks';
import { ADMIT_CREATE, DECODE_CREATE, VALIDATE_CREATE, type CreateWork } from './create-steps';

/** Kubernetes tries this many generated names before it gives up with a 409. */
const GENERATE_NAME_ATTEMPTS = 8;

/**
 * POST: a new object in `namespace` (ignored for cluster-scoped kinds), in the order of Kubernetes'
 * create handler and store: the body checked as an object of the kind in the path's namespace, field
 * validation, defaults (as decoding applies them), mutating admission, then per name (a generated
 * name is tried again when taken) server-set metadata and the kind's PrepareForCreate, its
 * BeginCreate, validation, validating admission and the store. A dry run answers as the real create
 * would, a taken name included.
 */
export async function createObject(store: Store, namespace: string, input: ObjectInput, options: WriteOptions = {}): Promise<WriteResult> {
  refuseWhileTerminating(store);
  const object = objectOf(store.definition, input.value);
  checkTypeMeta(store, object);
  checkNamespace(store.definition, object, namespace);
  const w = newWriteState(store, namespace, object.metadata?.name ?? '', '', options);
  await w.stepper.run([fieldValidation(input.duplicateFields ?? []), ...DECODE_CREATE, ADMIT_CREATE], { store, w, object });
  // Read after admission: a mutating webhook's patch gives the object new metadata.
  const meta = object.metadata!;
  const generate = !meta.name && !!meta.generateName;
  for (let attempt = 1; ; attempt++) {
    if (generate) meta.name = generateName(meta.generateName!);
    w.name = meta.name ?? '';
    // With a generated name, each attempt works on its own copy: what the hooks assign to one is
    // given back if it is not stored. A named create has one attempt and needs no copy (a copy of a
    // 4 MB object held the event loop for 0.4 s).
    const candidate = generate ? jsonClone(object) : object;
    const outcome = await createAttempt(store, w, candidate);
    if (outcome !== 'name taken') return outcome;
    if (!generate) throw newAlreadyExists(store.groupResource, w.name);
    if (attempt >= GENERATE_NAME_ATTEMPTS) throw newGenerateNameConflict(store.groupResource, w.name, 1);
  }
}

/** One name's attempt: its steps and the store, or 'name taken' when another object has the name. */
async function createAttempt(store: Store, w: WriteState, candidate: ApiObject): Promise<WriteResult | 'name taken'> {
  const work: CreateWork = { store, w, object: candidate };
  try {
    await w.stepper.run(VALIDATE_CREATE, work);
    const key = store.key(w.namespace, w.name);
    if (w.options.dryRun) {
      const free = (await store.readCurrent(key, w.name)) === null;
      await finishWrite(w, false);
      return free ? await writeResult(store, candidate, w, true) : 'name taken';
    }
    const stored = await store.context.storage.create<ApiObject>(key, await store.toStorage(candidate));
    await finishWrite(w, true);
    return await writeResult(store, stored, w, true);
  } catch (error) {
    await finishWrite(w, false);
    if (isStorageError(error, 'KeyExists')) return 'name taken';
    throw toStatusError(recoverTypeError(store, w, error), store.groupResource, w.name);
  }
}

/** Objects of a definition being deleted are still read, changed and deleted, but none is created. */
function refuseWhileTerminating(store: Store): void {
  if (store.definition.terminating !== true) return;
  throw new StatusError(
    failureStatus(405, StatusReasons.MethodNotAllowed, 'create not allowed while custom resource definition is terminating', {
      group: store.definition.group,
      kind: store.definition.resource,
    }),
  );
}
