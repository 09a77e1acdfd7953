import type { Deployment } from '@svc/api';

export type IntOrPercent = number | string;

/**
 * An absolute number, or a percentage of `total` rounded up or down (Kubernetes'
 * GetValueFromIntOrPercent). A string that is not a percentage is an error.
 */
export function valueFromIntOrPercent(value: IntOrPercent | undefined, total: number, roundUp: boolean): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number') return value;
  const match = /^(-?[0-9]+)%$/.exec(value);
  if (!match) throw new Error(`invalid value for IntOrString: ${JSON.stringify(value)} is not a percentage`);
  const scaled = Number(match[1]) * total;
  // Integer arithmetic: the same result as Go's ceil/floor of the float quotient.
  return roundUp ? Math.ceil(scaled / 100) : Math.floor(scaled / 100);
}

/**
 * maxSurge (rounded up) and maxUnavailable (rounded down) for `desired` replicas. Both resolving
 * to zero (a small deployment with percentages) would block the rollout, so maxUnavailable is then
 * 1, as Kubernetes does (surge might be refused by a quota).
 */
export function resolveFenceposts(
  maxSurge: IntOrPercent | undefined,
  maxUnavailable: IntOrPercent | undefined,
  desired: number,
): { surge: number; unavailable: number } {
  const surge = valueFromIntOrPercent(maxSurge ?? 0, desired, true);
  let unavailable = valueFromIntOrPercent(maxUnavailable ?? 0, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

export function desiredReplicas(d: Deployment): number {
  return d.spec.replicas ?? 1;
}

export function isRollingUpdate(d: Deployment): boolean {
  return (d.spec.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
}

function fenceposts(d: Deployment): { surge: number; unavailable: number } {
  const ru = d.spec.strategy?.rollingUpdate;
  // The API server defaults both to 25%; an object written before defaulting gets the same.
  return resolveFenceposts(ru?.maxSurge ?? '25%', ru?.maxUnavailable ?? '25%', desiredReplicas(d));
}

/** Extra pods a rolling update may run above spec.replicas; 0 for Recreate. */
export function maxSurge(d: Deployment): number {
  return isRollingUpdate(d) ? fenceposts(d).surge : 0;
}

/** Pods a rolling update may have unavailable, at most spec.replicas; 0 for Recreate or no replicas. */
export function maxUnavailable(d: Deployment): number {
  const replicas = desiredReplicas(d);
  if (!isRollingUpdate(d) || replicas === 0) return 0;
  return Math.min(fenceposts(d).unavailable, replicas);
}

/** Pods that must stay available during a rolling update (0 for Recreate). */
export function minAvailable(d: Deployment): number {
  return isRollingUpdate(d) ? desiredReplicas(d) - maxUnavailable(d) : 0;
}
