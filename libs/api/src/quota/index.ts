export * from './resource-list';
export * from './quota-evaluator';
export * from './quota-evaluators';
export { podResources } from './pod-resources';
export { objectCountQuotaEvaluator } from './object-count-quota';
export { STORAGE_CLASS_SUFFIX } from './persistent-volume-claim-quota';
export { podQuotaEvaluator } from './pod-quota';
export { serviceQuotaEvaluator } from './service-quota';
export { persistentVolumeClaimQuotaEvaluator } from './persistent-volume-claim-quota';
