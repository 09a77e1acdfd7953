// Admission: the plugin chain every write passes before it is stored.
export { AdmissionChain, warningsOfRefusal } from './admission';
export type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './admission';
export { admissionPluginSupport, buildAdmissionChain, unimplementedAdmissionPlugins } from './build-admission';
export type { AdmissionDependencies, AdmissionFlags } from './build-admission';
export { IMMORTAL_NAMESPACES, namespaceExists, namespaceLifecycle, storedNamespaceLookup } from './namespace-lifecycle';
export type { NamespaceLookup } from './namespace-lifecycle';
export { alwaysDeny } from './always';
export { priorityAdmission, SYSTEM_PRIORITY_CLASSES } from './priority';
export {
  DEFAULT_SERVICE_ACCOUNT,
  serviceAccountAdmission,
  storedCoreObjectLookup,
  storedServiceAccountLookup,
  type CoreObjectLookup,
  type ServiceAccountLookup,
} from './service-account';
export { mutatingAdmissionWebhook, validatingAdmissionWebhook, admissionReview, MAX_WEBHOOK_PATCH_BYTES } from './admission-webhooks';
export type { WebhookDependencies } from './admission-webhooks';
export { validatingAdmissionPolicy } from './validating-admission-policy';
export type { PolicyDependencies } from './validating-admission-policy';
export type { AdmissionAuthorizer } from './admission-cel';
export { storedAdmissionConfigurations, storedConfigurations, CONFIGURATION_REFRESH_MS } from './configuration-source';
export type { AdmissionConfigurations, ConfigurationSource } from './configuration-source';
export { callWebhook, MAX_WEBHOOK_RESPONSE_BYTES } from './webhook-call';
export { endpointsServiceResolver } from './service-resolver';
export type { ResolvedService, ServiceResolver } from './service-resolver';
export { MAX_POLICY_PARAMS, storedParams } from './policy-params';
export type { ParamQuery, ParamSource } from './policy-params';
export { defaultTolerationSeconds, DEFAULT_TOLERATION_SECONDS } from './default-toleration-seconds';
export { taintNodesByCondition } from './taint-nodes-by-condition';
export { storedNamespacePods } from './pod-security';
export type { NamespacePods } from './pod-security';
