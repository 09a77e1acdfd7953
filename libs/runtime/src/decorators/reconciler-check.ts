import type { TypedResource } from '@svc/client';
import type { PredicateEvent } from '../reconcile/predicates';
import type { Reconcile, ReconcileContext } from '../reconcile/reconcile';
import type { Request } from '../reconcile/request';
import type { MetadataOnlyRef } from '../reconcile/resource-ref';

// Type-level checks of `@Reconciler`: each mistake becomes one string literal type, so that the
// compiler's message is that sentence (two lines) instead of a structural comparison of object
// types that can run to twenty lines.

type InstanceOf<C> = C extends abstract new (...args: never[]) => infer I ? I : never;

/** `reconcile` as a property of function type: compared strictly, where a method would be bivariant. */
interface StrictReconcile {
  reconcile: (request: Request, context: ReconcileContext) => ReturnType<Reconcile['reconcile']>;
}

type IsAny<T> = 0 extends 1 & T ? true : false;

/** Whether a resource reference tells the type of its objects (only those can be checked). */
type IsTyped<Ref> = [Ref] extends [TypedResource<unknown> | MetadataOnlyRef<unknown>] ? true : false;

/**
 * Whether a callback parameter of type `P` takes the objects `T`: `T` fits `P`, and `P` names no
 * field `T` lacks, so that a structurally compatible but different kind (a Secret where the
 * resource holds ConfigMaps) is refused while a view such as `KubeObject` is accepted.
 */
type Takes<P, T> = IsAny<P> extends true ? true : [T] extends [P] ? ([Exclude<keyof P, keyof T>] extends [never] ? true : false) : false;

/** Whether a predicate takes the events of objects `T`. */
type PredicateTakes<F, T> = F extends (event: infer E) => boolean
  ? [E] extends [PredicateEvent<infer P>]
    ? Takes<P, T>
    : [PredicateEvent<T>] extends [E]
      ? true
      : false
  : false;

/** What is wrong with one predicate `F` of a source holding `T` (checked only when `Typed`). */
type PredicateProblem<F, T, Typed, Where extends string, Of extends string> = F extends (event: never) => boolean
  ? Typed extends true
    ? PredicateTakes<F, T> extends true
      ? never
      : `@Reconciler: ${Where} takes events of another type than the objects of ${Of}`
    : never
  : `@Reconciler: ${Where} must be a function (event) => boolean`;

/** The element types of a tuple mapped from another (a mapped type over a tuple is a tuple). */
type Elements<A> = A extends readonly unknown[] ? A[number] : never;

/** What is wrong with the predicates `PS` of a source holding `T`, each named `<where>[i]`. */
type PredicateProblems<PS, T, Typed, Where extends string, Of extends string> = Elements<{
  [I in keyof PS]: PredicateProblem<PS[I], T, Typed, `${Where}[${I & string}]`, Of>;
}>;

type ObjectParam<F> = F extends (object: infer P, ...rest: never[]) => unknown ? P : unknown;
type ReconcilerParam<F, At extends number> = F extends (...args: infer A) => unknown ? (A extends { [K in At]: infer R } ? R : unknown) : unknown;

/** What is wrong with one watch `E` whose resource holds `T`, for a class whose instances are `Inst`. */
type WatchProblems<E, T, Inst, I extends string> =
  | (E extends { resource: infer Ref; mapTo: infer M }
      ? IsTyped<Ref> extends true
        ? Takes<ObjectParam<M>, T> extends true
          ? never
          : `@Reconciler: watches[${I}].mapTo takes another type than the objects of watches[${I}].resource`
        : never
      : never)
  | (E extends { resource: infer Ref; predicates: infer PS }
      ? PredicateProblems<PS, T, IsTyped<Ref>, `watches[${I}].predicates`, `watches[${I}].resource`>
      : never)
  | (E extends { mapTo: infer M }
      ? M extends (...args: never[]) => readonly Request[]
        ? ReconcilerProblem<ReconcilerParam<M, 1>, Inst, `watches[${I}].mapTo`>
        : `@Reconciler: watches[${I}].mapTo must be a function returning Request[]`
      : never)
  | (E extends { delay: infer D }
      ? D extends (...args: never[]) => number
        ? ReconcilerProblem<ReconcilerParam<D, 0>, Inst, `watches[${I}].delay`>
        : `@Reconciler: watches[${I}].delay must be a function returning a number of milliseconds`
      : never);

/** Whether the class's instances fit the type a callback gives its reconciler parameter `R`. */
type ReconcilerProblem<R, Inst, Where extends string> = [R] extends [never]
  ? `@Reconciler: give the reconciler parameter of ${Where} the class as its type`
  : [Inst] extends [R]
    ? never
    : `@Reconciler: the class is not the reconciler type ${Where} takes`;

type AllWatchProblems<O, W extends readonly unknown[], Inst> = O extends { watches: infer WS }
  ? Elements<{ [I in keyof WS]: WatchProblems<WS[I], I extends keyof W ? W[I] : unknown, Inst, I & string> }>
  : never;

type ForProblems<O, T> = O extends { for: infer Ref; predicates: infer PS } ? PredicateProblems<PS, T, IsTyped<Ref>, 'predicates', '`for`'> : never;

type ReconcileProblem<Inst> = [Inst] extends [StrictReconcile]
  ? never
  : 'reconcile' extends keyof Inst
    ? '@Reconciler: reconcile must take (request: Request, context: ReconcileContext) and return Result | void or a Promise of it'
    : '@Reconciler: the class has no reconcile(request: Request, context: ReconcileContext) method';

type Problems<C, T, W extends readonly unknown[], O> =
  ReconcileProblem<InstanceOf<C>> extends infer P ? ([P] extends [never] ? ForProblems<O, T> | AllWatchProblems<O, W, InstanceOf<C>> : P) : never;

/**
 * The class `C` itself when it fits options `O` (with `T` the `for` resource's object type and `W`
 * each watch's), else the sentences saying what is wrong: a class that is not assignable to them
 * makes the decorator's error message read as those sentences.
 */
export type ReconcilerCheck<C, T, W extends readonly unknown[], O> = Problems<C, T, W, O> extends infer P ? ([P] extends [never] ? C : P) : never;
