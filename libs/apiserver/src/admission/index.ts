// Admission: the plugin chain every write passes before it is stored.
export { AdmissionChain } from './admission';
export type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './admission';
export { buildAdmissionChain } from './build-admission';
export type { AdmissionDependencies, AdmissionFlags } from './build-admission';
export { IMMORTAL_NAMESPACES, NAMESPACE_TERMINATING_CAUSE, namespaceExists, namespaceLifecycle, storedNamespaceLookup } from './namespace-lifecycle';
export type { NamespaceLookup } from './namespace-lifecycle';
export { alwaysDeny } from './always';
export { priorityAdmission, SYSTEM_PRIORITY_CLASSES } from './priority';
export { DEFAULT_SERVICE_ACCOUNT, serviceAccountAdmission, storedServiceAccountLookup, type ServiceAccountLookup } from './service-account';
