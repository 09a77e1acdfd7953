/** The `fieldValidation` levels of create, update and patch: what unknown or duplicate fields cause. */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';
