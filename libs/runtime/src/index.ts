export * from './reconcile/request';
export type { Reconcile, ReconcileContext } from './reconcile/reconcile';
export * from './reconcile/predicates';
export * from './reconcile/resource-ref';
export * from './decorators/reconciler.decorator';
export * from './controller/controller-metrics';
export { Controller, controllerOwnerRequests, consoleControllerLogger, type ControllerDependencies, type ControllerLogger } from './controller/controller';
export { TrackingClient } from './controller/tracking-client';
export { WriteTracker } from './controller/write-tracker';
export * from './leader-election/leader-election-options';
export * from './leader-election/leader-elector';
export { HealthServer, type HealthServerOptions, type ProbeCheck } from './manager/health-server';
export { Manager, type ManagerOptions } from './manager/manager';
export * from './manager/create-manager';

export * from './manager/runtime.module';
