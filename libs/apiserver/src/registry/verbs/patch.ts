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
import { validateFields } from '../generic/validation';
import { newWriteState, type WriteState, type WriteTarget } from '../generic/write-state';
import type { PatchOptions, WriteResult } from '../types';
import { applyObject, patchOptionsInvalid } from './apply';
import { checkNamespace, checkPatchedIdentity, checkTypeMeta } from './body-checks';
import { prepareUpdate } from './update-steps';

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
    await w.stepper.yieldIfSpent();
    const patched = patchedObject(store, w, mediaType, current, patch.value);
    await w.stepper.yieldIfSpent();
    if (target === 'scale')
      return { kind: 'update', object: await prepareUpdate(store, w, current, scaledObject(store.definition, current, patched)), current };
    checkTypeMeta(store, patched);
    checkNamespace(store.definition, patched, namespace);
    w.warnings = [];
    validateFields(store, patched, mediaType === JSON_PATCH_MEDIA_TYPE ? [] : patch.duplicateFields, w);
    await w.stepper.yieldIfSpent();
    return { kind: 'update', object: await prepareUpdate(store, w, current, patched), current };
  });
}

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
