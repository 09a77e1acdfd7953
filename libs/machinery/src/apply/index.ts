export { ANCIENT_CHANGES_MANAGER, MAX_UPDATE_MANAGERS, compareManagedFieldsEntries, formatManagedFieldsTime } from './managed-fields';
export type { UpdateManagedFieldsOptions } from './update-managed-fields';
export { updateManagedFields } from './update-managed-fields';
export type { ApplyPatchOptions, ApplyPatchResult } from './apply-patch';
export { BEFORE_FIRST_APPLY_MANAGER, applyPatch } from './apply-patch';
export {
  FIELD_MANAGER_MAX_LENGTH,
  MAX_SUBRESOURCE_NAME_LENGTH,
  fieldManagerFor,
  isResetManagedFields,
  managerFromUserAgent,
  validateFieldManager,
  validateManagedFields,
} from './field-manager';
export { FieldSet } from './field-set';
export type { FieldSetPath, KeyField, PathElement } from './path-element';
export { formatFieldPath, parsePathElementKey, pathElementKey } from './path-element';
export { SERVER_MANAGED_FIELDS } from './server-fields';
export { fieldSetOf } from './field-set-of';
