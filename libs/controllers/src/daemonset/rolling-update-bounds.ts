import type { DaemonSet } from '@svc/api';

/**
 * An int-or-percent against `total`, a percentage rounded up (Kubernetes'
 * GetScaledValueFromIntOrPercent with roundUp, as the DaemonSet controller calls it for both bounds).
 * Throws on a value that is neither, as Kubernetes refuses it.
 */
export function scaledValue(value: number | string | undefined, total: number): number {
  if (value === undefined) return 0;
  if (typeof value === 'number') return value;
  const match = /^([0-9]+)%$/.exec(value);
  if (!match) throw new Error(`invalid value for IntOrString: invalid value ${JSON.stringify(value)}`);
  return Math.ceil((Number(match[1]) * total) / 100);
}

function rollingUpdateOf(ds: DaemonSet) {
  const strategy = ds.spec.updateStrategy;
  return strategy?.type === 'RollingUpdate' ? strategy.rollingUpdate : undefined;
}

/** Kubernetes' SurgeCount: new pods a rolling update may add beside old available ones (0 unless maxSurge is set). */
export function surgeCount(ds: DaemonSet, numberToSchedule: number): number {
  return scaledValue(rollingUpdateOf(ds)?.maxSurge, numberToSchedule);
}

/** Kubernetes' UnavailableCount: nodes a rolling update may leave without an available pod. */
export function unavailableCount(ds: DaemonSet, numberToSchedule: number): number {
  return scaledValue(rollingUpdateOf(ds)?.maxUnavailable, numberToSchedule);
}

/** Kubernetes' AllowsSurge: a rolling update that starts the new pod before the old one goes. */
export function allowsSurge(ds: DaemonSet): boolean {
  try {
    return surgeCount(ds, 1) !== 0;
  } catch {
    return false;
  }
}

/**
 * The bounds of one step of a rolling update over `desired` nodes; when both come out 0 (a
 * DaemonSet the server would not accept), one unavailable node is allowed, as Kubernetes does.
 */
export function rollingUpdateBounds(ds: DaemonSet, desired: number): { maxSurge: number; maxUnavailable: number } {
  const maxSurge = surgeCount(ds, desired);
  let maxUnavailable = unavailableCount(ds, desired);
  if (desired > 0 && maxUnavailable === 0 && maxSurge === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable };
}
