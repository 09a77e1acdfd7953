import { errorMessage } from '../error-message';
import type { JsonSchema } from '../json-schema';
import { JsonObject } from './json-value';
import { jsonPatch } from './json-patch';
import { mergePatch } from './merge-patch';
import { PatchError, badRequest } from './patch-error';
import { strategicMergePatch } from './strategic-merge-patch';

export const JSON_PATCH_MEDIA_TYPE = 'application/json-patch+json';
export const MERGE_PATCH_MEDIA_TYPE = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH_MEDIA_TYPE = 'application/strategic-merge-patch+json';

/** The patch types handled here; server-side apply (`application/apply-patch+yaml`) is not one. */
export type NonApplyPatchMediaType = typeof JSON_PATCH_MEDIA_TYPE | typeof MERGE_PATCH_MEDIA_TYPE | typeof STRATEGIC_MERGE_PATCH_MEDIA_TYPE;

/** The media type of a Content-Type header value, without parameters, in lower case. */
export function patchMediaType(contentType: string): string {
  return contentType.split(';')[0].trim().toLowerCase();
}

export function isNonApplyPatchMediaType(contentType: string): boolean {
  const mediaType = patchMediaType(contentType);
  return mediaType === JSON_PATCH_MEDIA_TYPE || mediaType === MERGE_PATCH_MEDIA_TYPE || mediaType === STRATEGIC_MERGE_PATCH_MEDIA_TYPE;
}

/**
 * Kubernetes serves strategic merge patch for its built-in kinds only; a custom resource answers
 * 415, since its schema comes from a user and was never written with patch strategies in mind.
 */
export function isStrategicMergeSupported(resource: { builtIn: boolean }): boolean {
  return resource.builtIn;
}

/** The patch media types a resource accepts, apply included, in the order Kubernetes lists them. */
export function acceptedPatchMediaTypes(resource: { builtIn: boolean }): string[] {
  const types = [JSON_PATCH_MEDIA_TYPE, MERGE_PATCH_MEDIA_TYPE];
  if (isStrategicMergeSupported(resource)) types.push(STRATEGIC_MERGE_PATCH_MEDIA_TYPE);
  types.push('application/apply-patch+yaml');
  return types;
}

export interface NonApplyPatchOptions {
  /** Whether the resource is a built-in kind (strategic merge patch allowed) or a custom resource. */
  builtIn: boolean;
  /** The kind's schema; strategic merge patch reads its markers. */
  schema?: JsonSchema;
  /** What the `copy` operations of one JSON patch may add in all (bytes of JSON). */
  accumulatedCopySizeLimit?: number;
}

/** Parses a PATCH body; a body that is not JSON is a BadRequest. */
export function parsePatchBody(body: string | Uint8Array): unknown {
  const text = typeof body === 'string' ? body : new TextDecoder('utf-8', { fatal: false }).decode(body);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const detail = errorMessage(error);
    throw badRequest(`the patch body is not valid JSON: ${detail}`);
  }
}

/**
 * Applies a JSON, merge or strategic merge patch chosen by its Content-Type. Any other media type,
 * and strategic merge patch on a custom resource, is an UnsupportedMediaType PatchError.
 */
export function applyNonApplyPatch(contentType: string, original: JsonObject, patch: unknown, options: NonApplyPatchOptions): JsonObject {
  const mediaType = patchMediaType(contentType);
  switch (mediaType) {
    case JSON_PATCH_MEDIA_TYPE:
      return jsonPatch(original, patch, { accumulatedCopySizeLimit: options.accumulatedCopySizeLimit });
    case MERGE_PATCH_MEDIA_TYPE:
      return mergePatch(original, patch);
    case STRATEGIC_MERGE_PATCH_MEDIA_TYPE:
      if (isStrategicMergeSupported(options)) return strategicMergePatch(original, patch, options.schema ?? {});
      break;
  }
  throw new PatchError(
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${acceptedPatchMediaTypes(options).join(', ')}`,
  );
}
