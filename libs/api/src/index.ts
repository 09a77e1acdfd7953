// Common object model
export * from './meta/names';
export * from './meta/type-meta';
export * from './meta/object-meta';
export * from './meta/owner-reference';
export * from './meta/managed-fields-entry';
export * from './meta/list-meta';
export * from './meta/list';
export * from './meta/status';
export * from './meta/table';
export * from './meta/watch-event';
export * from './meta/delete-options';
export * from './meta/scale';
export * from './meta/label-selector';
export * from './meta/condition';
export * from './meta/quantity';

// Kinds
export * from './kinds/core/object-reference';
export * from './kinds/core/container';
export * from './kinds/core/volume';
export * from './kinds/core/pod-spec';
export * from './kinds/core/pod';
export * from './kinds/core/namespace';
export * from './kinds/core/service';
export * from './kinds/core/endpoints';
export * from './kinds/core/config-map';
export * from './kinds/core/secret';
export * from './kinds/core/event';
export * from './kinds/events/event';
export * from './kinds/core/node';
export * from './kinds/core/binding';
export * from './kinds/core/well-known';
export * from './kinds/core/taints';
export * from './kinds/core/node-affinity';
export * from './kinds/core/service-account';
export * from './kinds/core/replication-controller';
export * from './kinds/core/pod-template';
export * from './kinds/core/persistent-volume-claim';
export * from './kinds/core/persistent-volume';
export * from './kinds/core/node-selector';
export * from './kinds/storage/storage-class';
export * from './kinds/storage/csi-driver';
export * from './kinds/storage/csi-node';
export * from './kinds/storage/csi-storage-capacity';
export * from './kinds/storage/volume-attachment';
export * from './kinds/networking/ingress';
export * from './kinds/networking/ingress-class';
export * from './kinds/networking/network-policy';
export * from './kinds/core/resource-quota';
export * from './kinds/core/limit-range';
export * from './kinds/certificates/certificate-signing-request';
export * from './kinds/core/bootstrap-token';
export * from './kinds/certificates/certificate-request-pem';
export * from './kinds/flowcontrol/flow-schema';
export * from './kinds/flowcontrol/priority-level-configuration';
export * from './kinds/flowcontrol/bootstrap-configuration';
export * from './kinds/autoscaling/horizontal-pod-autoscaler';
export {
  HorizontalPodAutoscalerSchema as HorizontalPodAutoscalerV1Schema,
  HPA_BEHAVIOR_ANNOTATION,
  HPA_CONDITIONS_ANNOTATION,
  HPA_METRIC_SPECS_ANNOTATION,
  HPA_METRIC_STATUSES_ANNOTATION,
  type HorizontalPodAutoscalerV1,
  type HorizontalPodAutoscalerV1List,
} from './kinds/autoscaling/horizontal-pod-autoscaler-v1';
export * from './kinds/apps/replica-set';
export * from './kinds/apps/deployment';
export * from './kinds/apps/stateful-set';
export * from './kinds/apps/daemon-set';
export * from './kinds/apps/controller-revision';
export * from './kinds/batch/job';
export * from './kinds/batch/cron-job';
export * from './kinds/scheduling/priority-class';
export * from './kinds/node/runtime-class';
export * from './kinds/apiregistration/api-service';
export * from './kinds/coordination/lease';
export * from './kinds/policy/pod-disruption-budget';
export * from './kinds/discovery/endpoint-slice';
export * from './kinds/apiextensions/custom-resource-definition';
export * from './kinds/rbac/policy-rule';
export * from './kinds/rbac/role';
export * from './kinds/rbac/role-binding';
export * from './kinds/admissionregistration/webhook-configuration';
export * from './kinds/admissionregistration/validating-admission-policy';

// Schema engine
export type { JsonSchema, ListType, MapType, PatchStrategy } from './schema/json-schema';
export { SVC_KEYWORDS } from './schema/json-schema';
export * from './schema/builders';
export * from './schema/field-error';
export { formatFieldPath, joinField, joinIndex, joinKey, type PathSegment } from './schema/field-path';
export { compileKind, schemaCompileError, type CompiledKind } from './schema/compile-kind';
export { goJsonDecodeError, kindDecodeError } from './schema/go-json-decode';
export {
  objectChild,
  arrayItems,
  schemaAt,
  structuralNodes,
  preservesUnknownFields,
  isEmbeddedResource,
  type ChildSchema,
  type ChildKind,
} from './schema/schema-walk';

// Scheme
export * from './scheme/kind-definition';
export * from './scheme/kind-strategy';
export * from './scheme/scheme';
export * from './scheme/builtin-scheme';
export * from './scheme/versions';
export * from './scheme/removed-versions';
export { kindFromCrd, kindsFromCrd } from './scheme/kind-from-crd';
export { customResourceSchema, withKubernetesMarkers, withSvcMarkers } from './scheme/crd-schema';
export { celToJson, compileCel, MAX_EXPRESSION_LENGTH, type CelCostedOutcome, type CelOutcome, type CelProgram } from './cel/cel-environment';
export {
  costExceededMessage,
  declaredSizes,
  estimateCost,
  estimateCostRange,
  PER_CALL_COST_LIMIT,
  RUNTIME_COST_BUDGET,
  RUNTIME_MATCH_CONDITIONS_BUDGET,
  STATIC_ESTIMATED_COST_LIMIT,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
  type Range as CelCostRange,
  type SizeEstimator,
} from './cel/cel-cost';
export { COST_LIMIT_EXCEEDED } from './cel/cel-runtime-cost';
export { DECL, escapeCelName, schemaDeclType, type CelDeclType } from './cel/cel-decl-type';
export { formatType as formatCelType, type CelCheckedType } from './cel/cel-checker-types';
export {
  admissionEnvironment,
  compileAdmissionExpression,
  policyEnvironments,
  policyExpressionErrors,
  WEBHOOK_CONDITION_ENVIRONMENT,
  type AdmissionEnvironment,
  type AdmissionExpressionKind,
  type PolicyEnvironments,
} from './cel/cel-admission-environment';
export {
  authorizationCheckKey,
  authorizerBindings,
  PendingAuthorization,
  type AuthorizationAnswer,
  type AuthorizationAnswers,
  type AuthorizationCheck,
  type AuthorizationUser,
  type RequestResource,
} from './cel/cel-authorizer-library';
export {
  checkValidationRules,
  markerSpelling,
  validationRuleErrors,
  ValidationRuleSet,
  VALIDATIONS_MARKER,
  type RuleCheckOptions,
  type RuleCostEstimate,
  type ValidationRuleSpec,
} from './cel/validation-rules';
export { buildTable, columnsOf, DEFAULT_COLUMNS, type BuildTableOptions, type IncludeObject } from './scheme/table';
export { humanDuration, timestampSince } from './scheme/human-duration';
export { evaluateJsonPath, jsonPathValue, parseJsonPath, type JsonPathStep } from './scheme/json-path';
export { defineKind, METADATA_FIELD_SELECTORS } from './scheme/definitions/define-kind';
export { defaultPullPolicy } from './scheme/definitions/pod-spec-rules';
export { summarizePod } from './scheme/definitions/pod-definition';
export { podDefinition } from './scheme/definitions/pod-definition';
export { podQosClass, podQosClassOf, type PodQosClass } from './scheme/definitions/pod-qos';
export {
  mutatingWebhookConfigurationDefinition,
  validatingAdmissionPolicyBindingDefinition,
  validatingAdmissionPolicyDefinition,
  validatingWebhookConfigurationDefinition,
} from './scheme/definitions/admission-registration-definitions';
export { deploymentDefinition } from './scheme/definitions/deployment-definition';
export { replicaSetDefinition } from './scheme/definitions/replica-set-definition';
export { replicationControllerDefinition } from './scheme/definitions/replication-controller-definition';
export { statefulSetDefinition } from './scheme/definitions/stateful-set-definition';
export { daemonSetDefinition } from './scheme/definitions/daemon-set-definition';
export { controllerRevisionDefinition } from './scheme/definitions/controller-revision-definition';
export { jobDefinition, countIndexes } from './scheme/definitions/job-definition';
export { cronJobDefinition } from './scheme/definitions/cron-job-definition';
export { parseCronSchedule, CronScheduleError, isIanaTimeZone, type CronSchedule, type CronField } from './scheme/definitions/cron-schedule';
export { nextCronTime, formatRfc3339InZone, localTimeZone } from './scheme/definitions/cron-schedule-times';
export { podTemplateDefinition } from './scheme/definitions/pod-template-definition';
export { priorityClassDefinition } from './scheme/definitions/priority-class-definition';
export { runtimeClassDefinition } from './scheme/definitions/runtime-class-definition';
export { eventsEventDefinition } from './scheme/definitions/events-event-definition';
export { apiServiceDefinition } from './scheme/definitions/api-service-definition';
export { persistentVolumeDefinition } from './scheme/definitions/persistent-volume-definition';
export { persistentVolumeClaimDefinition } from './scheme/definitions/persistent-volume-claim-definition';
export {
  storageClassDefinition,
  csiDriverDefinition,
  csiNodeDefinition,
  csiStorageCapacityDefinition,
  volumeAttachmentDefinition,
  isDefaultStorageClass,
  defaultStorageClassOf,
} from './scheme/definitions/storage-definitions';
export {
  ingressDefinition,
  ingressClassDefinition,
  networkPolicyDefinition,
  isDefaultIngressClass,
  defaultIngressClassOf,
} from './scheme/definitions/networking-definitions';
export { persistentVolumeSources } from './scheme/definitions/persistent-volume-rules';
export { accessModesCell as formatAccessModes, storageClassOf } from './scheme/definitions/storage-rules';
export { serviceDefinition } from './scheme/definitions/service-definition';
export { isGlobalUnicast, splitSchemeNamePort } from './scheme/definitions/proxy-locations';
export { endpointsDefinition, formatEndpoints } from './scheme/definitions/endpoints-definition';
export { namespaceDefinition } from './scheme/definitions/namespace-definition';
export { configMapDefinition } from './scheme/definitions/config-map-definition';
export { secretDefinition } from './scheme/definitions/secret-definition';
export { eventDefinition } from './scheme/definitions/event-definition';
export { nodeDefinition } from './scheme/definitions/node-definition';
export { serviceAccountDefinition } from './scheme/definitions/service-account-definition';
export { leaseDefinition } from './scheme/definitions/lease-definition';
export { podDisruptionBudgetDefinition } from './scheme/definitions/pod-disruption-budget-definition';
export { resourceQuotaDefinition } from './scheme/definitions/resource-quota-definition';
export { limitRangeDefinition } from './scheme/definitions/limit-range-definition';
export { certificateSigningRequestDefinition, csrConditionSummary, signerNameErrors } from './scheme/definitions/certificate-signing-request-definition';
export { flowSchemaDefinition, priorityLevelConfigurationDefinition } from './scheme/definitions/flowcontrol-definitions';
export {
  formatHpaMetrics,
  horizontalPodAutoscalerDefinition,
  horizontalPodAutoscalerV1Definition,
} from './scheme/definitions/horizontal-pod-autoscaler-definition';
export { convertHorizontalPodAutoscaler, defaultHorizontalPodAutoscalerV2 } from './scheme/definitions/horizontal-pod-autoscaler-conversion';
export { ENDPOINT_SLICE_MANAGED_BY_LABEL, ENDPOINT_SLICE_SERVICE_NAME_LABEL, endpointSliceDefinition } from './scheme/definitions/endpoint-slice-definition';
export { customResourceDefinitionDefinition } from './scheme/definitions/custom-resource-definition-definition';
export { clusterRoleBindingDefinition, clusterRoleDefinition, RBAC_GROUP, roleBindingDefinition, roleDefinition } from './scheme/definitions/rbac-definitions';

// OpenAPI
export * from './openapi/openapi-document';
export { BINDING_RESOURCE, COMPONENT_STATUS_RESOURCE, REVIEW_RESOURCES, type NonStoredResource } from './scheme/definitions/review-definitions';
export * from './kinds/core/component-status';
export * from './quota';
