import type { ApiObject, KindDefinition, ObjectMeta, PropagationPolicy } from '@svc/api';
import { jsonClone, jsonEqual } from './json-equal';
import { formatTimestamp, isCoreKind } from './object-meta-rules';

/** The finalizers the garbage collector acts on, added by a delete's propagationPolicy. */
export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

export interface DeletionRequest {
  propagationPolicy?: PropagationPolicy;
  /** The older spelling of Orphan (true) and Background (false). */
  orphanDependents?: boolean;
  gracePeriodSeconds?: number;
}

/**
 * What a delete does to the stored object:
 * - `remove`: delete it from the store now (no finalizers, no grace period);
 * - `mark`: store `object`, which is Terminating (deletionTimestamp set) until its finalizers are gone
 *   or its grace period is over;
 * - `none`: it is already Terminating and this request changes nothing.
 */
export type DeletionPlan = { action: 'remove' } | { action: 'mark'; object: ApiObject } | { action: 'none' };

/**
 * The first phase of Kubernetes' two-phase deletion for one object (spec "States and transitions").
 * A propagationPolicy given with the request adds or removes the garbage collector's finalizers
 * (Orphan: `orphan`; Foreground: `foregroundDeletion`; Background: neither); without one the
 * finalizers stay as they are. Pods bound to a node get their grace period (deletionTimestamp in the
 * future) for the node agent; unbound or finished pods go at once. Namespaces are marked
 * `Terminating` while their `spec.finalizers` or finalizers remain. `deletionTimestamp` never moves
 * later once set.
 */
export function planDeletion(def: KindDefinition, current: ApiObject, request: DeletionRequest, now: Date): DeletionPlan {
  const object = jsonClone(current);
  const meta = (object.metadata ??= {}) as ObjectMeta;
  const before = meta.finalizers ?? [];
  const finalizers = finalizersForPolicy(before, policyOf(request));
  if (finalizers.length > 0) meta.finalizers = finalizers;
  else delete meta.finalizers;
  const finalizersChanged = !jsonEqual(before, finalizers);

  if (isCoreKind(def, 'Namespace')) return planNamespaceDeletion(object, finalizers, finalizersChanged, now);

  const grace = isCoreKind(def, 'Pod') ? podGracePeriodSeconds(object, request) : 0;
  if (meta.deletionTimestamp) {
    let changed = finalizersChanged;
    const pendingGrace = meta.deletionGracePeriodSeconds ?? 0;
    if (grace < pendingGrace) {
      if (grace === 0 && finalizers.length === 0) return { action: 'remove' };
      const shortened = formatTimestamp(new Date(now.getTime() + grace * 1000));
      if (shortened < meta.deletionTimestamp) meta.deletionTimestamp = shortened;
      meta.deletionGracePeriodSeconds = grace;
      changed = true;
    }
    if (finalizers.length === 0 && (meta.deletionGracePeriodSeconds ?? 0) === 0) return { action: 'remove' };
    return changed ? { action: 'mark', object } : { action: 'none' };
  }
  if (grace > 0) {
    meta.deletionTimestamp = formatTimestamp(new Date(now.getTime() + grace * 1000));
    meta.deletionGracePeriodSeconds = grace;
    return { action: 'mark', object };
  }
  if (finalizers.length > 0) {
    meta.deletionTimestamp = formatTimestamp(now);
    meta.deletionGracePeriodSeconds = 0;
    return { action: 'mark', object };
  }
  return { action: 'remove' };
}

/**
 * Whether an update leaves a Terminating object with nothing holding it: it is then removed instead of
 * stored (the last finalizer was removed). A namespace also waits for its spec.finalizers.
 */
export function isReleased(def: KindDefinition, object: ApiObject): boolean {
  const meta = object.metadata;
  if (!meta?.deletionTimestamp) return false;
  if ((meta.finalizers ?? []).length > 0) return false;
  if (isCoreKind(def, 'Namespace')) return namespaceSpecFinalizers(object).length === 0;
  // A pod within its grace period waits for its node agent even without finalizers.
  return (meta.deletionGracePeriodSeconds ?? 0) === 0;
}

function planNamespaceDeletion(object: ApiObject, finalizers: string[], finalizersChanged: boolean, now: Date): DeletionPlan {
  const meta = object.metadata as ObjectMeta;
  if (namespaceSpecFinalizers(object).length === 0 && finalizers.length === 0) return { action: 'remove' };
  if (meta.deletionTimestamp) return finalizersChanged ? { action: 'mark', object } : { action: 'none' };
  meta.deletionTimestamp = formatTimestamp(now);
  meta.deletionGracePeriodSeconds = 0;
  const status = (typeof object.status === 'object' && object.status !== null ? object.status : (object.status = {})) as Record<string, unknown>;
  status.phase = 'Terminating';
  return { action: 'mark', object };
}

function namespaceSpecFinalizers(object: ApiObject): unknown[] {
  const spec = object.spec as { finalizers?: unknown } | undefined;
  return Array.isArray(spec?.finalizers) ? spec.finalizers : [];
}

function policyOf(request: DeletionRequest): PropagationPolicy | undefined {
  if (request.propagationPolicy !== undefined) return request.propagationPolicy;
  if (request.orphanDependents === true) return 'Orphan';
  if (request.orphanDependents === false) return 'Background';
  return undefined;
}

function finalizersForPolicy(finalizers: readonly string[], policy: PropagationPolicy | undefined): string[] {
  switch (policy) {
    case 'Orphan':
      return withFinalizer(finalizers.filter((f) => f !== FOREGROUND_FINALIZER), ORPHAN_FINALIZER);
    case 'Foreground':
      return withFinalizer(finalizers.filter((f) => f !== ORPHAN_FINALIZER), FOREGROUND_FINALIZER);
    case 'Background':
      return finalizers.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
    default:
      return [...finalizers];
  }
}

function withFinalizer(finalizers: string[], finalizer: string): string[] {
  return finalizers.includes(finalizer) ? finalizers : [...finalizers, finalizer];
}

/**
 * Kubernetes' pod grace: none for a pod not bound to a node (no node agent would ever act on it) or
 * one that has finished; else the request's gracePeriodSeconds, the pod's
 * terminationGracePeriodSeconds, or 30.
 */
function podGracePeriodSeconds(pod: ApiObject, request: DeletionRequest): number {
  const spec = (pod.spec ?? {}) as { nodeName?: string; terminationGracePeriodSeconds?: number };
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  if (!spec.nodeName || phase === 'Succeeded' || phase === 'Failed') return 0;
  const requested = request.gracePeriodSeconds ?? spec.terminationGracePeriodSeconds ?? 30;
  return Math.max(0, requested);
}
