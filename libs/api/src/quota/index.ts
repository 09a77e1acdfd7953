export * from './resource-list';
export * from './quota-evaluator';
export * from './quota-evaluators';
export { podResources } from './pod-resources';
export { STORAGE_CLASS_SUFFIX } from './persistent-volume-claim-quota';
