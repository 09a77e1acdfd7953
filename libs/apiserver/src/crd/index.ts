// CustomResourceDefinitions: naming, establishing and finalizing, and their validation beyond the schema.
export { customResourceDefinitions, CRD_POST_START_HOOKS } from './crd-part';
export type { CrdPartOptions } from './crd-part';
export { CrdController } from './crd-controller';
export type { CrdChange, CrdControllerLogger, CrdControllerOptions } from './crd-controller';
export { storageCleaner } from './custom-resource-cleaner';
export { registryCleaner, CRD_CLEANUP_FIELD_MANAGER } from './registry-cleaner';
export type { CustomResourceCleaner } from './custom-resource-cleaner';
export { customResourceDefinitionRule, installCrdValidation, validateCustomResourceDefinition } from './crd-validation';
export { structuralSchemaErrors } from './structural-schema';
export { checkNames, claimedNames, expectedCrdName, requestedNames, servable } from './crd-names';
export type { ClaimedNames, NamesAcceptedCondition, NamesCheck } from './crd-names';
export { CRD_FINALIZER, ESTABLISHED, NAMES_ACCEPTED, TERMINATING, findCondition, isConditionTrue, setCondition } from './crd-conditions';
export type { CrdCondition } from './crd-conditions';
