export * from './reconcile/request';
export type { Reconcile, ReconcileContext } from './reconcile/reconcile';
export * from './reconcile/predicates';
export * from './reconcile/terminal-error';
export * from './reconcile/trigger';
export * from './reconcile/cache-reader';
export * from './reconcile/cache-declarations';
export type { WriteDeclarations } from './reconcile/write-declarations';
export * from './reconcile/resource-ref';
export * from './decorators/reconciler.decorator';
export * from './decorators/runnable.decorator';
export * from './controller/controller-metrics';
export { Controller, controllerOwnerRequests, consoleControllerLogger, type ControllerDependencies, type ControllerLogger } from './controller/controller';
export { TrackingClient } from './controller/tracking-client';
export {
  ReconcileRecorder,
  RECONCILE_CONTROLLER_LABEL,
  RECONCILE_RECORD_ANNOTATION,
  MAX_RECORDED_WRITES,
  type ReconcileRecord,
  type ReconcileRecordResult,
  type ReconcileRecorderOptions,
  type ReconcileWrite,
} from './controller/reconcile-recorder';
export { WriteTracker, type TrackedWrite, type WriteScope } from './controller/write-tracker';
export { Expectations, KeyExpectations, EXPECTATIONS_TIMEOUT_MS } from './controller/expectations';
export * from './leader-election/leader-election-options';
export * from './leader-election/leader-elector';
export { HealthServer, type HealthServerOptions, type ProbeCheck } from './manager/health-server';
export { Manager, type ManagerOptions } from './manager/manager';
export { INFORMER_METRIC_NAMES, registerInformerMetrics } from './manager/informer-metrics';
export * from './manager/create-manager';
export { servingPair, type TlsPair } from './manager/serving-pair';
export * from './manager/runtime.module';
export type { MetaObject } from './helpers/object-shape';
export * from './helpers/finalizers';
export * from './helpers/owner-references';
export * from './helpers/update-status';
export * from './helpers/conditions';
export * from './helpers/create-or-update';
export * from './helpers/event-recorder';
export { informerForResource } from './controller/informer-for-resource';
export * from './resources/define-resource';
export * from './resources/defaulted-fields';
export * from './resources/install-resources';
export * from './webhooks/admission-decorators';
export {
  WebhookServer,
  type ConversionSource,
  type ManagerWebhookOptions,
  type WebhookCertificate,
  type WebhookServerOptions,
  type WebhookService,
} from './webhooks/webhook-server';
export { DEFAULT_CERTIFICATE_ROTATION, type CertificateRotation } from './webhooks/serving-certificate';
export { exitOnSignals } from './manager/exit-on-signals';
export { parseBindAddress } from './manager/bind-address';
export * from './manifests/rbac-rules';
export * from './manifests/operator-manifests';
