import 'reflect-metadata';
import type { KubeObject } from '@svc/informers';
import type { CacheDeclarations } from '../reconcile/cache-declarations';
import type { WriteDeclarations } from '../reconcile/write-declarations';
import type { CacheReader } from '../reconcile/cache-reader';
import type { Predicate } from '../reconcile/predicates';
import type { Request } from '../reconcile/request';
import type { ResourceRef } from '../reconcile/resource-ref';
import type { ReconcilerCheck } from './reconciler-check';

/**
 * Another resource whose changes map to requests of this reconciler. Inside `@Reconciler`, `T` is
 * the type of `resource`'s objects: `mapTo`, `predicates` and `delay` are typed by it.
 */
export interface WatchMapping<T = KubeObject, R = never> {
  resource: ResourceRef<T>;
  /**
   * The requests a change of `object` should enqueue (for a delete: its last known state).
   * `cache` reads the manager's caches (`mapTo: (pod, _r, cache) => servicesSelecting(cache, pod)`);
   * `reconciler` is the instance the controller runs, for mappings that ask it; annotate its type,
   * which `@Reconciler` checks against the class it decorates.
   */
  mapTo(object: NoInfer<WatchedObject<T>>, reconciler: R, cache: CacheReader): Request[];
  predicates?: ReadonlyArray<Predicate<NoInfer<WatchedObject<T>>>>;
  /**
   * How long (ms) a change of this resource waits before its requests are enqueued, read once from
   * the reconciler when its controller is made (a flag such as `--endpoint-updates-batch-period`):
   * the changes that arrive meanwhile make one reconcile. None by default.
   */
  delay?(reconciler: R): number;
}

/**
 * What `@Reconciler` records. `T` is the type of the `for` resource's objects and `W` those of
 * each watch's resource, in order; both are inferred from the resources named.
 */
export interface ReconcilerOptions<T = KubeObject, W extends readonly unknown[] = readonly KubeObject[]> extends CacheDeclarations, WriteDeclarations {
  /** The primary resource: each of its objects is one request. */
  for: ResourceRef<T>;
  /** Resources whose objects' controller owner (ownerReference with `controller: true`) of the `for` kind is enqueued. */
  owns?: ReadonlyArray<ResourceRef<unknown>>;
  /** Each entry's callbacks get the objects of its own `resource`: `{ resource: BUILTIN_RESOURCES.pods, mapTo: (pod) => ... }`. */
  watches?: { [I in keyof W]: WatchMapping<W[I]> };
  /** Workers; no key is ever reconciled by two at once. Default 1. */
  concurrency?: number;
  /** Filters for changes of the `for` resource (owned objects and watches are not filtered by these). */
  predicates?: ReadonlyArray<Predicate<NoInfer<T>>>;
  /** Name in metrics and logs; the class name by default. */
  name?: string;
  /** Watch one namespace only; all by default. */
  namespace?: string;
}

/**
 * A callback as `@Reconciler` takes it: `F` gives unannotated parameters their types, and any other
 * function passes here too, for {@link ReconcilerCheck} to refuse with a one-line message where the
 * compiler would print a comparison of two object types that runs to twenty lines.
 */
type Judged<F> = F | object;

/** The objects of a watch whose resource does not tell their type (`T` inferred as unknown) are KubeObjects. */
export type WatchedObject<T> = unknown extends T ? KubeObject : T;

/** One watch as `@Reconciler` takes it (see {@link Judged}). */
interface WatchInput<T> {
  resource: ResourceRef<T>;
  mapTo: Judged<(object: NoInfer<WatchedObject<T>>, reconciler: never, cache: CacheReader) => Request[]>;
  predicates?: ReadonlyArray<Judged<Predicate<NoInfer<WatchedObject<T>>>>>;
  delay?: Judged<(reconciler: never) => number>;
}

/** The options as `@Reconciler` takes them: {@link ReconcilerOptions} with judged callbacks. */
export type ReconcilerInput<T, W extends readonly unknown[]> = Omit<ReconcilerOptions<T, W>, 'watches' | 'predicates'> & {
  watches?: { [I in keyof W]: WatchInput<W[I]> };
  predicates?: ReadonlyArray<Judged<Predicate<NoInfer<T>>>>;
};

/** A class `@Reconciler` may decorate: any constructor (its instance is checked by {@link ReconcilerCheck}). */
export type ReconcilerClass = abstract new (...args: never[]) => unknown;

/**
 * `@Reconciler(options)`: accepts only a class whose instances have `reconcile(request, context)`
 * and fit what the options' callbacks take (each mistake is named in one short message).
 */
export type ReconcilerDecorator<T, W extends readonly unknown[], O> = <C extends ReconcilerClass>(target: ReconcilerCheck<C, T, W, O>) => void;

export const RECONCILER_METADATA = Symbol.for('svc.runtime.reconciler');

/**
 * Marks a class as a reconciler. It records the options and nothing more: the manager (standalone)
 * or the Nest module's explorer reads them when it starts.
 *
 * The types follow the resources: `for: BUILTIN_RESOURCES.deployments` makes `predicates` take
 * Deployments, and each watch's `mapTo`, `predicates` and `delay` take the objects of its own
 * `resource`. `O` is the options as written, which the returned decorator checks against the class.
 */
export function Reconciler<T = KubeObject, const W extends readonly unknown[] = [], const O = unknown>(
  options: ReconcilerInput<T, W> & O,
): ReconcilerDecorator<T, W, O> {
  return ((target: object) => {
    Reflect.defineMetadata(RECONCILER_METADATA, options, target);
  }) as unknown as ReconcilerDecorator<T, W, O>;
}

/** The options `@Reconciler` recorded on a class (or the class of an instance), if any. */
export function getReconcilerOptions(target: object): ReconcilerOptions | undefined {
  const cls = typeof target === 'function' ? target : target.constructor;
  return Reflect.getMetadata(RECONCILER_METADATA, cls) as ReconcilerOptions | undefined;
}

export function isReconcilerClass(target: unknown): boolean {
  return typeof target === 'function' && Reflect.hasMetadata(RECONCILER_METADATA, target);
}
