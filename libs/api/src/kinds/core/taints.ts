import type { Taint } from './node';
import type { Toleration } from './pod-spec';

/** Kubernetes' Toleration.ToleratesTaint: effect and key match when given; `Exists` takes any value, `Equal` (or none) the same. */
export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? '') {
    case '':
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** Whether any of `tolerations` tolerates `taint`. */
export function taintTolerated(taint: Taint, tolerations: readonly Toleration[] | undefined): boolean {
  return (tolerations ?? []).some((t) => toleratesTaint(t, taint));
}

/** The first taint `filter` keeps that no toleration tolerates (the scheduler's FindMatchingUntoleratedTaint). */
export function findUntoleratedTaint(
  taints: readonly Taint[] | undefined,
  tolerations: readonly Toleration[] | undefined,
  filter: (taint: Taint) => boolean = () => true,
): Taint | undefined {
  return (taints ?? []).find((taint) => filter(taint) && !taintTolerated(taint, tolerations));
}

/** NoSchedule and NoExecute taints keep a pod that does not tolerate them off a node. */
export const isDoNotScheduleTaint = (taint: Taint): boolean => taint.effect === 'NoSchedule' || taint.effect === 'NoExecute';

/**
 * Kubernetes' GetMatchingTolerations: whether every taint is tolerated, and for each taint the first
 * toleration that tolerates it.
 */
export function matchingTolerations(taints: readonly Taint[], tolerations: readonly Toleration[] | undefined): { tolerated: boolean; matching: Toleration[] } {
  const matching: Toleration[] = [];
  for (const taint of taints) {
    const toleration = (tolerations ?? []).find((t) => toleratesTaint(t, taint));
    if (toleration === undefined) return { tolerated: false, matching: [] };
    matching.push(toleration);
  }
  return { tolerated: true, matching };
}

/**
 * How long a pod may stay on a node with these matching tolerations (Kubernetes' getMinTolerationTime),
 * in seconds: the least `tolerationSeconds` (0 for none or a non-positive one), or undefined when no
 * toleration limits it (tolerated forever).
 */
export function minTolerationSeconds(tolerations: readonly Toleration[]): number | undefined {
  if (tolerations.length === 0) return 0;
  let least: number | undefined;
  for (const t of tolerations) {
    if (t.tolerationSeconds === undefined || t.tolerationSeconds === null) continue;
    if (t.tolerationSeconds <= 0) return 0;
    least = least === undefined ? t.tolerationSeconds : Math.min(least, t.tolerationSeconds);
  }
  return least;
}

/** Whether a taint with this key and effect is on the list (Kubernetes' Taint.MatchTaint ignores the value). */
export function hasTaint(taints: readonly Taint[] | undefined, key: string, effect: Taint['effect']): boolean {
  return (taints ?? []).some((t) => t.key === key && t.effect === effect);
}
