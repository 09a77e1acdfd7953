import type { KubeObject } from '@svc/informers';

/** One change an informer saw, as a predicate judges it. */
export type PredicateEvent<T = KubeObject> = { type: 'create'; object: T } | { type: 'update'; object: T; oldObject: T } | { type: 'delete'; object: T };

/**
 * Whether a change should enqueue a reconcile; every predicate of a source must agree. Declared
 * through a method so that a predicate of a narrower type (`Predicate<Pod>`) fits a source of
 * objects in general, as the source only ever hands it objects of its own resource.
 */
export type Predicate<T = KubeObject> = { check(event: PredicateEvent<T>): boolean }['check'];

/** Updates pass only when `metadata.generation` changed (a spec change); status-only writes are skipped. */
export const GenerationChanged: Predicate = (event) => {
  if (event.type !== 'update') return true;
  const oldGen = event.oldObject.metadata?.generation;
  const newGen = event.object.metadata?.generation;
  // An object without generation cannot be judged, so it passes (as controller-runtime does not).
  if (oldGen === undefined || newGen === undefined) return true;
  return String(oldGen) !== String(newGen);
};

/** Updates pass only when the labels changed. */
export const LabelChanged: Predicate = (event) => {
  if (event.type !== 'update') return true;
  return !sameRecord(event.oldObject.metadata?.labels, event.object.metadata?.labels);
};

/** Updates pass only when the annotations changed. */
export const AnnotationChanged: Predicate = (event) => {
  if (event.type !== 'update') return true;
  return !sameRecord(event.oldObject.metadata?.annotations, event.object.metadata?.annotations);
};

/** The object type a predicate judges. */
export type PredicateObject<P> = P extends (event: PredicateEvent<infer T>) => boolean ? T : never;

type Intersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/**
 * Passes when any of `predicates` passes. It judges what all of them can judge: `anyOf(GenerationChanged,
 * podReady)` takes pods, so the decorator refuses it on a source of another kind.
 */
export function anyOf<const P extends ReadonlyArray<Predicate<never>>>(...predicates: P): Predicate<Intersection<PredicateObject<P[number]>>> {
  return (event) => predicates.some((p) => p(event as never));
}

/** Passes the events of the given types only. */
export function onlyOn(...types: Array<PredicateEvent['type']>): Predicate {
  const allowed = new Set(types);
  return (event) => allowed.has(event.type);
}

export function passesAll(predicates: readonly Predicate[] | undefined, event: PredicateEvent): boolean {
  return (predicates ?? []).every((p) => p(event));
}

function sameRecord(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean {
  const ak = Object.keys(a ?? {});
  const bk = Object.keys(b ?? {});
  return ak.length === bk.length && ak.every((k) => a?.[k] === b?.[k]);
}
