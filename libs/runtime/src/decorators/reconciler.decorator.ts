import 'reflect-metadata';
import type { KubeObject } from '@svc/informers';
import type { Predicate } from '../reconcile/predicates';
import type { Reconcile } from '../reconcile/reconcile';
import type { Request } from '../reconcile/request';
import type { ResourceRef } from '../reconcile/resource-ref';

/** Another resource whose changes map to requests of this reconciler. */
export interface WatchMapping<T = KubeObject, R = Reconcile> {
  resource: ResourceRef<T>;
  /**
   * The requests a change of `object` should enqueue (for a delete: its last known state).
   * `reconciler` is the instance the controller runs, for mappings that read its caches
   * (`mapTo: (pod, r: EndpointsReconciler) => r.servicesSelecting(pod)`).
   */
  mapTo(object: T, reconciler: R): Request[];
  predicates?: Array<Predicate<T>>;
  /**
   * How long (ms) a change of this resource waits before its requests are enqueued, read once from
   * the reconciler when its controller is made (a flag such as `--endpoint-updates-batch-period`):
   * the changes that arrive meanwhile make one reconcile. None by default.
   */
  delay?(reconciler: R): number;
}

export interface ReconcilerOptions<T = KubeObject> {
  /** The primary resource: each of its objects is one request. */
  for: ResourceRef<T>;
  /** Resources whose objects' controller owner (ownerReference with `controller: true`) of the `for` kind is enqueued. */
  owns?: ResourceRef[];
  /** Each entry may name its own types: `{ resource: BUILTIN_RESOURCES.pods, mapTo: (pod: Pod, r: MyReconciler) => ... }`. */
  watches?: WatchMapping[];
  /** Workers; no key is ever reconciled by two at once. Default 1. */
  concurrency?: number;
  /** Filters for changes of the `for` resource (owned objects and watches are not filtered by these). */
  predicates?: Predicate[];
  /** Name in metrics and logs; the class name by default. */
  name?: string;
  /** Watch one namespace only; all by default. */
  namespace?: string;
}

export const RECONCILER_METADATA = Symbol.for('svc.runtime.reconciler');

/**
 * Marks a class as a reconciler. It records the options and nothing more: the manager (standalone)
 * or the Nest module's explorer reads them when it starts.
 */
export function Reconciler<T = KubeObject>(options: ReconcilerOptions<T>): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(RECONCILER_METADATA, options, target);
  };
}

/** The options `@Reconciler` recorded on a class (or the class of an instance), if any. */
export function getReconcilerOptions(target: object): ReconcilerOptions | undefined {
  const cls = typeof target === 'function' ? target : target.constructor;
  return Reflect.getMetadata(RECONCILER_METADATA, cls) as ReconcilerOptions | undefined;
}

export function isReconcilerClass(target: unknown): boolean {
  return typeof target === 'function' && Reflect.hasMetadata(RECONCILER_METADATA, target);
}
