import type { Pod } from '@svc/api';
import { isPodActive, isPodReady, podReadyCondition } from '../common/pod-status';

/** The annotation by which users order the scale-down of a ReplicaSet's pods (lower cost goes first). */
export const POD_DELETION_COST_ANNOTATION = 'controller.kubernetes.io/pod-deletion-cost';

export interface RankingOptions {
  /** Reference time (ms since epoch) of the logarithmic comparisons. */
  nowMs: number;
  /** Honour the pod-deletion-cost annotation (Kubernetes' PodDeletionCost gate, on by default). */
  deletionCost?: boolean;
  /**
   * Compare ready and creation times in log2 buckets of their age, breaking ties by uid
   * (Kubernetes' LogarithmicScaleDown gate, on by default): a scale-down then does not always hit
   * the very newest pods, which spreads the loss over failure domains.
   */
  logarithmic?: boolean;
}

const PHASE_ORDINAL: Readonly<Record<string, number>> = { Pending: 0, Unknown: 1, Running: 2 };

function phaseOrdinal(pod: Pod): number {
  return PHASE_ORDINAL[pod.status?.phase ?? ''] ?? 0;
}

/** The pod's deletion cost; absent or malformed (not an int32) counts as 0, as Kubernetes reads it. */
export function podDeletionCost(pod: Pod): number {
  const raw = pod.metadata?.annotations?.[POD_DELETION_COST_ANNOTATION];
  if (raw === undefined || !/^[+-]?\d+$/.test(raw)) return 0;
  const value = Number(raw);
  return value >= -2147483648 && value <= 2147483647 ? value : 0;
}

/** When the pod became ready (ms since epoch); undefined when it is not ready or the time is unknown. */
function readySince(pod: Pod): number | undefined {
  if (!isPodReady(pod)) return undefined;
  return parseTime(podReadyCondition(pod)?.lastTransitionTime);
}

function parseTime(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

/** The most restarts of any one container of the pod. */
export function maxContainerRestarts(pod: Pod): number {
  let max = 0;
  for (const c of pod.status?.containerStatuses ?? []) max = Math.max(max, c.restartCount ?? 0);
  return max;
}

/** Negative when `a` sorts first: an unknown time first, then the later one (Kubernetes' afterOrZero). */
function laterFirst(a: number | undefined, b: number | undefined): number {
  if (a === undefined || b === undefined) return a === undefined ? (b === undefined ? 0 : -1) : 1;
  return b - a;
}

/** log2 of the age in nanoseconds, truncated; -1 for a time not in the past. */
function logAgeBucket(timeMs: number, nowMs: number): number {
  const ageNs = (nowMs - timeMs) * 1e6;
  return ageNs > 0 ? Math.trunc(Math.log2(ageNs)) : -1;
}

function compareTimes(a: Pod, ta: number | undefined, b: Pod, tb: number | undefined, options: RankingOptions): number {
  if (options.logarithmic === false || ta === undefined || tb === undefined || !options.nowMs) return laterFirst(ta, tb);
  const diff = logAgeBucket(ta, options.nowMs) - logAgeBucket(tb, options.nowMs);
  if (diff !== 0) return diff;
  const ua = a.metadata?.uid ?? '';
  const ub = b.metadata?.uid ?? '';
  return ua < ub ? -1 : ua > ub ? 1 : 0;
}

/**
 * Kubernetes' ActivePodsWithRanks order: negative when pod `a` should be deleted before pod `b`.
 * `rankA`/`rankB` count the related active pods on each one's node (doubled-up pods go first).
 * 1. unassigned before assigned; 2. Pending < Unknown < Running; 3. not ready before ready;
 * 4. lower deletion cost first; 5. higher rank first; 6. ready for less time first;
 * 7. more container restarts first; 8. newer first.
 */
export function compareForDeletion(a: Pod, rankA: number, b: Pod, rankB: number, options: RankingOptions): number {
  const nodeA = a.spec?.nodeName ?? '';
  const nodeB = b.spec?.nodeName ?? '';
  if (nodeA !== nodeB && (nodeA === '' || nodeB === '')) return nodeA === '' ? -1 : 1;
  const phase = phaseOrdinal(a) - phaseOrdinal(b);
  if (phase !== 0) return phase;
  const readyA = isPodReady(a);
  const readyB = isPodReady(b);
  if (readyA !== readyB) return readyA ? 1 : -1;
  if (options.deletionCost !== false) {
    const cost = podDeletionCost(a) - podDeletionCost(b);
    if (cost !== 0) return cost;
  }
  if (rankA !== rankB) return rankB - rankA;
  if (readyA && readyB) {
    const ta = readySince(a);
    const tb = readySince(b);
    if (ta !== tb) {
      const byReady = compareTimes(a, ta, b, tb, options);
      if (byReady !== 0) return byReady;
    }
  }
  const restarts = maxContainerRestarts(b) - maxContainerRestarts(a);
  if (restarts !== 0) return restarts;
  const ca = parseTime(a.metadata?.creationTimestamp);
  const cb = parseTime(b.metadata?.creationTimestamp);
  if (ca !== cb) return compareTimes(a, ca, b, cb, options);
  return 0;
}

/**
 * The `count` pods to delete first, by {@link compareForDeletion}. `related` are the active pods of
 * the ReplicaSet's siblings (same controller owner) and its own: each pod is ranked by how many of
 * them share its node. All are returned unsorted when all go.
 */
export function podsToDelete(pods: readonly Pod[], related: readonly Pod[], count: number, options: RankingOptions): Pod[] {
  if (count >= pods.length) return [...pods];
  const onNode = new Map<string, number>();
  for (const pod of related) {
    if (!isPodActive(pod)) continue;
    const node = pod.spec?.nodeName ?? '';
    onNode.set(node, (onNode.get(node) ?? 0) + 1);
  }
  const ranked = pods.map((pod) => ({ pod, rank: onNode.get(pod.spec?.nodeName ?? '') ?? 0 }));
  ranked.sort((x, y) => compareForDeletion(x.pod, x.rank, y.pod, y.rank, options));
  return ranked.slice(0, count).map((r) => r.pod);
}
