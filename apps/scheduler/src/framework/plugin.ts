import type { NodeInfo } from '../cache/node-info';
import type { SchedulerCache } from '../cache/scheduler-cache';
import type { PodInfo } from '../cache/pod-info';
import type { ClusterEvent } from '../queue/cluster-event';
import type { NamespaceLabels } from './affinity';

/** The pods nominated to a node (by preemption) that other pods must leave room for. */
export interface NominatedPods {
  forNode(nodeName: string): readonly PodInfo[];
}

const NO_NOMINATIONS: NominatedPods = { forNode: () => [] };

/** What a plugin keeps in the cycle state and must copy when the state is copied (Kubernetes' StateData). */
export interface StateData {
  clone(): StateData;
}

function isStateData(value: unknown): value is StateData {
  return typeof value === 'object' && value !== null && typeof (value as { clone?: unknown }).clone === 'function';
}

/** What one scheduling attempt of one pod carries from plugin to plugin (Kubernetes' CycleState). */
export class CycleState {
  private readonly data = new Map<string, unknown>();

  constructor(
    readonly pod: PodInfo,
    readonly cache: SchedulerCache,
    readonly namespaceLabels: NamespaceLabels,
    readonly nominated: NominatedPods = NO_NOMINATIONS,
  ) {}

  write<T>(key: string, value: T): void {
    this.data.set(key, value);
  }

  read<T>(key: string): T | undefined {
    return this.data.get(key) as T | undefined;
  }

  /** A copy whose plugin data can be changed (pods added or removed on a node) without touching this one. */
  clone(): CycleState {
    const copy = new CycleState(this.pod, this.cache, this.namespaceLabels, this.nominated);
    for (const [key, value] of this.data) copy.data.set(key, isStateData(value) ? value.clone() : value);
    return copy;
  }
}

/**
 * Why a node cannot take the pod: one reason, or several (Insufficient cpu and memory). The reasons
 * are counted across nodes into the FailedScheduling message.
 */
export type FilterOutcome = string | readonly string[] | undefined;

/**
 * A node refused, by the first filter that refused it: its reasons, and whether evicting pods could
 * not change it (Kubernetes' UnschedulableAndUnresolvable), so that preemption leaves the node alone.
 */
export interface Refusal {
  readonly plugin: string;
  readonly reasons: readonly string[];
  readonly unresolvable: boolean;
}

/** A filter plugin (Kubernetes' PreFilter + Filter). Filters run in order; the first that refuses decides a node's reasons. */
export interface FilterPlugin {
  readonly name: string;
  /**
   * Work done once per attempt before the nodes are filtered. A reason returned rejects the pod on
   * every node at once, and no eviction can change it (Kubernetes' PreFilter returning
   * UnschedulableAndUnresolvable): the message then says it once rather than per node.
   */
  preFilter?(state: CycleState): string | undefined | void;
  /** Undefined when the node fits. */
  filter(state: CycleState, node: NodeInfo): FilterOutcome;
  /** Whether these reasons of this plugin stay whatever pods leave the node; resolvable when absent. */
  unresolvable?(reasons: readonly string[]): boolean;
  /**
   * The pre-filter work updated for a pod placed on (or taken off) `node` in a simulation: a
   * nominated pod counted, a preemption victim removed (Kubernetes' PreFilterExtensions).
   */
  addPod?(state: CycleState, added: PodInfo, node: NodeInfo): void;
  removePod?(state: CycleState, removed: PodInfo, node: NodeInfo): void;
  /** Whether a cluster event may make a node this plugin refused fit now. */
  curedBy(event: ClusterEvent): boolean;
}

/**
 * A plugin that acts for the chosen node before the pod is bound to it (Kubernetes' Reserve,
 * Unreserve and PreBind extension points).
 */
export interface BindingPlugin {
  readonly name: string;
  /** Once the node is chosen, in the scheduling loop, before the pod is assumed there: reserves what the pod will use. */
  reserve?(state: CycleState, nodeName: string): void;
  /** Undoes `reserve` when the pod is not bound after all. */
  unreserve?(state: CycleState, nodeName: string): void;
  /** Before the binding call, outside the scheduling loop; throwing fails the binding and the pod is tried again. */
  preBind?(state: CycleState, nodeName: string, signal: AbortSignal): Promise<void>;
}

/** A score plugin (Kubernetes' PreScore + Score + NormalizeScore); scores end in 0..100 and are weighted. */
export interface ScorePlugin {
  readonly name: string;
  readonly weight: number;
  preScore?(state: CycleState, nodes: readonly NodeInfo[]): void;
  score(state: CycleState, node: NodeInfo): number;
  /** Scales the raw scores, in place, into 0..100. */
  normalize?(state: CycleState, nodes: readonly NodeInfo[], scores: number[]): void;
}

export const MAX_NODE_SCORE = 100;

/** Kubernetes' DefaultNormalizeScore: scores scaled so the highest is 100; reversed, so the lowest is. */
export function defaultNormalize(scores: number[], reverse: boolean): void {
  let max = 0;
  for (const s of scores) if (s > max) max = s;
  if (max === 0) {
    if (reverse) scores.fill(MAX_NODE_SCORE);
    return;
  }
  for (let i = 0; i < scores.length; i++) {
    const scaled = Math.trunc((MAX_NODE_SCORE * scores[i]) / max);
    scores[i] = reverse ? MAX_NODE_SCORE - scaled : scaled;
  }
}
