import type { ApiObject, KindDefinition, PropagationPolicy } from '@svc/api';
import { jsonClone, jsonEqual, metaTime } from '@svc/machinery';

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
 * finalizers stay as they are. The kind's strategy gives the grace period (a pod bound to a node waits
 * for its agent: deletionTimestamp in the future), what else holds the object (a namespace's
 * spec.finalizers) and what changes when it is first marked (a namespace turns Terminating).
 * `deletionTimestamp` never moves later once set.
 */
export function planDeletion(def: KindDefinition, current: ApiObject, request: DeletionRequest, now: Date): DeletionPlan {
  const object = jsonClone(current);
  const meta = (object.metadata ??= {});
  const before = meta.finalizers ?? [];
  const finalizers = finalizersForPolicy(before, policyOf(request) ?? defaultPolicy(def, before));
  if (finalizers.length > 0) meta.finalizers = finalizers;
  else delete meta.finalizers;
  const finalizersChanged = !jsonEqual(before, finalizers);
  const held = finalizers.length > 0 || (def.strategy.pendingFinalizers?.(object).length ?? 0) > 0;

  const grace = def.strategy.deletionGracePeriodSeconds?.(object, request.gracePeriodSeconds) ?? 0;
  if (meta.deletionTimestamp) {
    let changed = finalizersChanged;
    const pendingGrace = meta.deletionGracePeriodSeconds ?? 0;
    if (grace < pendingGrace) {
      if (grace === 0 && !held) return { action: 'remove' };
      const shortened = metaTime(new Date(now.getTime() + grace * 1000));
      if (shortened < meta.deletionTimestamp) meta.deletionTimestamp = shortened;
      meta.deletionGracePeriodSeconds = grace;
      changed = true;
    }
    if (!held && (meta.deletionGracePeriodSeconds ?? 0) === 0) return { action: 'remove' };
    return changed ? { action: 'mark', object } : { action: 'none' };
  }
  if (grace > 0) {
    meta.deletionTimestamp = metaTime(new Date(now.getTime() + grace * 1000));
    meta.deletionGracePeriodSeconds = grace;
    def.strategy.onDeletionMarked?.(object);
    return { action: 'mark', object };
  }
  if (held) {
    meta.deletionTimestamp = metaTime(now);
    meta.deletionGracePeriodSeconds = 0;
    def.strategy.onDeletionMarked?.(object);
    return { action: 'mark', object };
  }
  return { action: 'remove' };
}

/**
 * Whether an update leaves a Terminating object with nothing holding it: it is then removed instead of
 * stored (the last finalizer was removed). What else the kind's strategy says holds it counts too.
 */
export function isReleased(def: KindDefinition, object: ApiObject): boolean {
  const meta = object.metadata;
  if (!meta?.deletionTimestamp) return false;
  if ((meta.finalizers ?? []).length > 0) return false;
  if ((def.strategy.pendingFinalizers?.(object).length ?? 0) > 0) return false;
  // A pod within its grace period waits for its node agent even without finalizers.
  return (meta.deletionGracePeriodSeconds ?? 0) === 0;
}

function policyOf(request: DeletionRequest): PropagationPolicy | undefined {
  if (request.propagationPolicy !== undefined) return request.propagationPolicy;
  if (request.orphanDependents === true) return 'Orphan';
  if (request.orphanDependents === false) return 'Background';
  return undefined;
}

/**
 * Kubernetes' shouldOrphanDependents without a policy in the request: a garbage collector finalizer
 * the object already has decides, else the kind's default (Orphan for batch/v1 Jobs).
 */
function defaultPolicy(def: KindDefinition, finalizers: readonly string[]): PropagationPolicy | undefined {
  if (finalizers.includes(ORPHAN_FINALIZER) || finalizers.includes(FOREGROUND_FINALIZER)) return undefined;
  return def.strategy.defaultPropagationPolicy;
}

function finalizersForPolicy(finalizers: readonly string[], policy: PropagationPolicy | undefined): string[] {
  switch (policy) {
    case 'Orphan':
      return withFinalizer(
        finalizers.filter((f) => f !== FOREGROUND_FINALIZER),
        ORPHAN_FINALIZER,
      );
    case 'Foreground':
      return withFinalizer(
        finalizers.filter((f) => f !== ORPHAN_FINALIZER),
        FOREGROUND_FINALIZER,
      );
    case 'Background':
      return finalizers.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
    default:
      return [...finalizers];
  }
}

function withFinalizer(finalizers: string[], finalizer: string): string[] {
  return finalizers.includes(finalizer) ? finalizers : [...finalizers, finalizer];
}
