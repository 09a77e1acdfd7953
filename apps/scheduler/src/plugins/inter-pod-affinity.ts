import type { Pod } from '@svc/api';
import type { NodeInfo } from '../cache/node-info';
import type { PodInfo } from '../cache/pod-info';
import { termMatches, type AffinityTerm } from '../framework/affinity';
import type { CycleState, FilterPlugin, StateData } from '../framework/plugin';

export const ERR_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules";
export const ERR_AFFINITY = "node(s) didn't match pod affinity rules";
export const ERR_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules";

const STATE = 'InterPodAffinity/state';

/** Counts of matching pods per topology pair (`key` and value joined by a NUL). */
type TopologyCounts = Map<string, number>;

class AffinityState implements StateData {
  constructor(
    /** Pairs where a placed pod's required anti-affinity selects the incoming pod. */
    readonly existingAntiAffinity: TopologyCounts = new Map(),
    /** Pairs holding pods that match every one of the incoming pod's affinity terms. */
    readonly affinity: TopologyCounts = new Map(),
    /** Pairs holding pods that one of the incoming pod's anti-affinity terms selects. */
    readonly antiAffinity: TopologyCounts = new Map(),
  ) {}

  clone(): AffinityState {
    return new AffinityState(new Map(this.existingAntiAffinity), new Map(this.affinity), new Map(this.antiAffinity));
  }
}

function pair(key: string, value: string): string {
  return `${key}\u0000${value}`;
}

function bump(counts: TopologyCounts, node: NodeInfo, key: string, by = 1): void {
  const value = node.node?.metadata?.labels?.[key];
  if (value === undefined) return;
  const p = pair(key, value);
  const count = (counts.get(p) ?? 0) + by;
  if (count === 0) counts.delete(p);
  else counts.set(p, count);
}

function matchesAll(terms: readonly AffinityTerm[], pod: Pod, state: CycleState): boolean {
  return terms.length > 0 && terms.every((t) => termMatches(t, pod, state.namespaceLabels));
}

/**
 * Kubernetes' InterPodAffinity filter for required terms over any topology key (`kubernetes.io/hostname`
 * puts one node in each domain): a node whose domain holds a pod whose anti-affinity selects this one,
 * or lacks a pod this one's affinity needs, or holds one its anti-affinity excludes, does not fit. The
 * first pod of a group whose affinity selects itself may go anywhere the topology keys exist.
 */
export const interPodAffinity: FilterPlugin = {
  name: 'InterPodAffinity',
  preFilter(state) {
    const incoming = state.pod;
    const counts = new AffinityState();
    for (const placed of state.cache.podsWithRequiredAntiAffinity()) {
      const node = state.cache.node(placed.pod.spec.nodeName ?? '');
      if (node?.node === undefined) continue;
      for (const term of placed.requiredAntiAffinity)
        if (termMatches(term, incoming.pod, state.namespaceLabels)) bump(counts.existingAntiAffinity, node, term.topologyKey);
    }
    if (incoming.requiredAffinity.length > 0 || incoming.requiredAntiAffinity.length > 0) {
      for (const node of state.cache.nodes()) {
        for (const placed of node.pods.values()) countIncoming(state, incoming, placed, node, counts);
      }
    }
    state.write(STATE, counts);
  },
  addPod: (state, added, node) => simulate(state, added, node, 1),
  removePod: (state, removed, node) => simulate(state, removed, node, -1),
  filter(state, node) {
    const counts = state.read<AffinityState>(STATE);
    const labels = node.node?.metadata?.labels ?? {};
    if (counts === undefined) return undefined;
    if (counts.existingAntiAffinity.size > 0) {
      for (const [key, value] of Object.entries(labels)) if ((counts.existingAntiAffinity.get(pair(key, value)) ?? 0) > 0) return ERR_EXISTING_ANTI_AFFINITY;
    }
    const terms = state.pod.requiredAffinity;
    if (terms.length > 0) {
      let podsExist = true;
      for (const term of terms) {
        const value = labels[term.topologyKey];
        if (value === undefined) return ERR_AFFINITY;
        if ((counts.affinity.get(pair(term.topologyKey, value)) ?? 0) <= 0) podsExist = false;
      }
      if (!podsExist && !(counts.affinity.size === 0 && matchesAll(terms, state.pod.pod, state))) return ERR_AFFINITY;
    }
    if (counts.antiAffinity.size > 0) {
      for (const term of state.pod.requiredAntiAffinity) {
        const value = labels[term.topologyKey];
        if (value !== undefined && (counts.antiAffinity.get(pair(term.topologyKey, value)) ?? 0) > 0) return ERR_ANTI_AFFINITY;
      }
    }
    return undefined;
  },
  // Evicting lower-priority pods never brings the pods a required affinity needs.
  unresolvable: (reasons) => reasons.includes(ERR_AFFINITY),
  curedBy: (e) => e.resource === 'AssignedPod' || (e.resource === 'Node' && (e.action === 'Add' || e.changes.has('label'))),
};

function countIncoming(state: CycleState, incoming: PodInfo, placed: PodInfo, node: NodeInfo, counts: AffinityState, by = 1): void {
  if (matchesAll(incoming.requiredAffinity, placed.pod, state)) {
    for (const term of incoming.requiredAffinity) bump(counts.affinity, node, term.topologyKey, by);
  }
  for (const term of incoming.requiredAntiAffinity)
    if (termMatches(term, placed.pod, state.namespaceLabels)) bump(counts.antiAffinity, node, term.topologyKey, by);
}

/** The counts with `pod` placed on `node` (by 1) or taken off it (by -1), in a simulation. */
function simulate(state: CycleState, pod: PodInfo, node: NodeInfo, by: 1 | -1): void {
  const counts = state.read<AffinityState>(STATE);
  if (counts === undefined || node.node === undefined) return;
  for (const term of pod.requiredAntiAffinity)
    if (termMatches(term, state.pod.pod, state.namespaceLabels)) bump(counts.existingAntiAffinity, node, term.topologyKey, by);
  countIncoming(state, state.pod, pod, node, counts, by);
}
