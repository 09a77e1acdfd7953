import { mediaTypeOf } from '../../decoding/media-types';
import type { WriteTarget } from '../../registry/generic/write-state';
import { APPLY_PATCH_MEDIA_TYPE } from '../../registry/verbs/patch';
import { readBody } from '../../request/read-body';
import { writeBody } from '../responses/write-body';
import { shownIn, writeOptionsOf, type ResourceRequest } from '../request-scope';

/**
 * PATCH of the object or its status, of any patch type the Content-Type names (server-side apply
 * included): PatchOptions from the query (fieldManager as given for apply), the body as the patch;
 * 201 when an apply created the object.
 */
export async function servePatch(request: ResourceRequest, target: WriteTarget): Promise<void> {
  const { scope, req } = request;
  const contentType = req.headers['content-type'];
  const options = writeOptionsOf(request, 'PatchOptions', mediaTypeOf(contentType ?? '') === APPLY_PATCH_MEDIA_TYPE);
  const body = await readBody(req, request.deps.maxRequestBodyBytes);
  const result = await scope.registry.patch(scope.namespace, scope.name, contentType, body, options, target);
  writeBody(request.res, result.created ? 201 : 200, shownIn(scope, result.object), request.format, result.warnings);
}

/** PATCH of the `scale` subresource: the patch applies to the Scale, and a Scale is answered. */
export async function servePatchScale(request: ResourceRequest): Promise<void> {
  const { scope, req } = request;
  const contentType = req.headers['content-type'];
  const options = writeOptionsOf(request, 'PatchOptions', mediaTypeOf(contentType ?? '') === APPLY_PATCH_MEDIA_TYPE);
  const body = await readBody(req, request.deps.maxRequestBodyBytes);
  const { scale, warnings } = await scope.registry.patchScale(scope.namespace, scope.name, contentType, body, options);
  writeBody(request.res, 200, shownIn(scope, scale), request.format, warnings);
}
