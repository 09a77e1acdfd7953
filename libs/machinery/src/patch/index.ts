export type { JsonObject, JsonPrimitive, JsonValue } from './json-value';
export { isJsonObject, isRecord } from './json-value';
export type { PatchErrorKind } from './patch-error';
export { PatchError } from './patch-error';
export { jsonPatch } from './json-patch';
export { createMergePatch, mergePatch } from './merge-patch';
export { strategicMergePatch } from './strategic-merge-patch';
export { createStrategicMergePatch } from './create-strategic-merge-patch';
export type { NonApplyPatchMediaType, NonApplyPatchOptions } from './patch-type';
export {
  JSON_PATCH_MEDIA_TYPE,
  MERGE_PATCH_MEDIA_TYPE,
  STRATEGIC_MERGE_PATCH_MEDIA_TYPE,
  acceptedPatchMediaTypes,
  applyNonApplyPatch,
  isNonApplyPatchMediaType,
  isStrategicMergeSupported,
  parsePatchBody,
  patchMediaType,
} from './patch-type';
