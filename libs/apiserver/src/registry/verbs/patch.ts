import { ScaleSchema, type ApiObject, type Scale } from '@svc/api';
import {
  acceptedPatchMediaTypes,
  applyNonApplyPatch,
  fieldForbidden,
  isNonApplyPatchMediaType,
  newNotFound,
  newUnsupportedMediaType,
  type JsonObject,
  type JsonSchema,
} from '@svc/machinery';
import { decodeJsonBody, type DecodedBody } from '../../decoding/body-decoder';
import { mediaTypeOf } from '../../decoding/media-types';
import { guaranteedUpdate } from '../generic/guaranteed-update';
import { scaledObject, scaleOf } from '../generic/scale';
import { toStatusError } from '../generic/status-mapping';
import type { Store } from '../generic/store';
import { writeStep, type WriteStep } from '../generic/stepper';
import { validateFields } from '../generic/validation';
import { newWriteState, type WriteState, type WriteTarget } from '../generic/write-state';
import type { PatchOptions, WriteResult } from '../types';
import { applyObject, patchOptionsInvalid } from './apply';
import { checkNamespace, checkPatchedIdentity, checkTypeMeta } from './body-checks';
import { UPDATE_STEPS, type UpdateWork } from './update-steps';

export const APPLY_PATCH_MEDIA_TYPE = 'application/apply-patch+yaml';
const JSON_PATCH_MEDIA_TYPE = 'application/json-patch+json';

/**
 * PATCH of the object, of its `status` or of its `scale`: JSON patch, merge patch, strategic merge
 * patch (built-in kinds only, 415 otherwise), or server-side apply (`application/apply-patch+yaml`,
 * see applyObject), which may create the object. The patch applies to the stored object at each round
 * of the guaranteed update; the result must still be this object, then goes through field validation
 * and the update steps.
 */
export async function patchObject(
  store: Store,
  namespace: string,
  name: string,
  contentType: string | undefined,
  body: Buffer,
  options: PatchOptions = {},
  target: WriteTarget = '',
): Promise<WriteResult> {
  const mediaType = mediaTypeOf(contentType ?? '');
  if (mediaType === APPLY_PATCH_MEDIA_TYPE) return applyObject(store, namespace, name, body, options, target);
  if (options.force !== undefined) throw patchOptionsInvalid([fieldForbidden('force', 'may not be specified for non-apply patch')]);
  if (!isNonApplyPatchMediaType(mediaType)) throw newUnsupportedMediaType(acceptedPatchMediaTypes({ builtIn: store.builtIn }));
  const patch = decodeJsonBody(body);
  const w = newWriteState(store, namespace, name, target, options);
  return guaranteedUpdate(store, w, async (current) => {
    if (current === null) throw newNotFound(store.groupResource, name);
    const work: PatchWork = { store, w, current, next: current, errors: [], mediaType, patch: patch.value, duplicateFields: patch.duplicateFields };
    await w.stepper.run(PATCH_STEPS, work);
    return { kind: 'update', object: work.next, current };
  });
}

/** A patch as its steps see it: an update whose next state the patch makes of the stored object. */
interface PatchWork extends UpdateWork {
  mediaType: string;
  patch: DecodedBody['value'];
  duplicateFields: readonly string[];
}

/**
 * The steps of one round of a patch: the patch applied to the stored object (or its Scale, whose
 * replicas go back into the object), the patched object checked as this object of the kind with
 * field validation, then the update steps.
 */
const PATCH_STEPS: readonly WriteStep<PatchWork>[] = [
  writeStep('apply the patch', (p) => {
    const patched = patchedObject(p.store, p.w, p.mediaType, p.current, p.patch);
    p.next = p.w.target === 'scale' ? scaledObject(p.store.definition, p.current, patched) : patched;
  }),
  writeStep('check the patched object', ({ store, w, next, mediaType, duplicateFields }) => {
    if (w.target === 'scale') return;
    checkTypeMeta(store, next);
    checkNamespace(store.definition, next, w.namespace);
    w.warnings = [];
    validateFields(store, next, mediaType === JSON_PATCH_MEDIA_TYPE ? [] : duplicateFields, w);
  }),
  ...UPDATE_STEPS,
];

/** PATCH of the `scale` subresource: the patch applies to the Scale, answered as a Scale. */
export async function patchScale(
  store: Store,
  namespace: string,
  name: string,
  contentType: string | undefined,
  body: Buffer,
  options: PatchOptions = {},
): Promise<{ scale: Scale; warnings: string[] }> {
  const result = await patchObject(store, namespace, name, contentType, body, options, 'scale');
  return { scale: scaleOf(store.definition, result.object), warnings: result.warnings };
}

/**
 * The stored object (or its Scale) with the patch applied. The patched document must still be this
 * object: a patch that drops or renames its metadata (`{"metadata":null}`, `{"$patch":"delete"}`)
 * would otherwise strip labels and finalizers.
 */
function patchedObject(store: Store, w: WriteState, mediaType: string, current: ApiObject, patch: DecodedBody['value']): ApiObject {
  const onScale = w.target === 'scale';
  const base = (onScale ? scaleOf(store.definition, current) : current) as JsonObject;
  const schema: JsonSchema = onScale ? ScaleSchema : store.compiled.schema;
  let patched: unknown;
  try {
    patched = applyNonApplyPatch(mediaType, base, patch, {
      builtIn: store.builtIn,
      schema,
      accumulatedCopySizeLimit: store.context.maxRequestBodyBytes,
    });
  } catch (error) {
    throw toStatusError(error, store.groupResource, w.name);
  }
  checkPatchedIdentity(store.definition, patched, w.name, mediaType === JSON_PATCH_MEDIA_TYPE);
  w.subject = patched;
  return patched;
}
