import type { Container, Node, Pod, PodSpec } from '@svc/api';
import { SchedulerCache } from '../cache/scheduler-cache';
import { podInfoOf } from '../cache/pod-info';
import type { NamespaceLabels } from '../framework/affinity';
import { CycleState, type FilterOutcome, type FilterPlugin, type ScorePlugin } from '../framework/plugin';

/** Nodes and pods for plugin specs: a node has 4 CPUs, 8 GiB and room for 110 pods unless told otherwise. */

export interface TestNodeOptions {
  labels?: Record<string, string>;
  cpu?: string;
  memory?: string;
  pods?: string;
  /** Extended resources (`example.com/gpu`) and others, as allocatable quantities. */
  extra?: Record<string, string>;
  taints?: NonNullable<Node['spec']>['taints'];
  unschedulable?: boolean;
}

export function testNode(name: string, options: TestNodeOptions = {}): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...options.labels } },
    spec: { taints: options.taints, unschedulable: options.unschedulable },
    status: { allocatable: { cpu: options.cpu ?? '4', memory: options.memory ?? '8Gi', pods: options.pods ?? '110', ...options.extra } },
  };
}

export interface TestPodOptions {
  namespace?: string;
  labels?: Record<string, string>;
  /** The node it is bound to. */
  node?: string;
  /** The first container's requests. */
  requests?: Record<string, string>;
  /** Its controller owner's uid. */
  owner?: string;
  spec?: Partial<PodSpec>;
  containers?: Container[];
}

export function testPod(name: string, options: TestPodOptions = {}): Pod {
  const container: Container = { name: 'c', image: 'busybox', ...(options.requests ? { resources: { requests: options.requests } } : {}) };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: options.namespace ?? 'default',
      uid: `uid-${name}`,
      labels: options.labels,
      ...(options.owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: options.owner, controller: true }] } : {}),
    },
    spec: { containers: options.containers ?? [container], ...(options.node ? { nodeName: options.node } : {}), ...options.spec },
  };
}

/** A cache holding these nodes, and these pods on the nodes they name. */
export function clusterOf(nodes: readonly Node[], pods: readonly Pod[] = []): SchedulerCache {
  const cache = new SchedulerCache();
  for (const node of nodes) cache.addNode(node);
  for (const pod of pods) cache.addPod(pod);
  return cache;
}

/** One scheduling attempt of `pod` over the cluster. */
export function cycleFor(cache: SchedulerCache, pod: Pod, namespaceLabels: NamespaceLabels = () => undefined): CycleState {
  return new CycleState(podInfoOf(pod), cache, namespaceLabels);
}

/** Each node's filter outcome (undefined: it fits), by node name, after the plugin's pre-filter. */
export function filterNodes(plugin: FilterPlugin, state: CycleState): Record<string, FilterOutcome> {
  const rejected = plugin.preFilter?.(state);
  if (rejected) return Object.fromEntries(state.cache.nodes().map((node) => [node.name, rejected]));
  return Object.fromEntries(state.cache.nodes().map((node) => [node.name, plugin.filter(state, node)]));
}

/** Each node's normalized score, by node name, as the framework computes it for one plugin (before its weight). */
export function scoreNodes(plugin: ScorePlugin, state: CycleState): Record<string, number> {
  const nodes = state.cache.nodes();
  plugin.preScore?.(state, nodes);
  const scores = nodes.map((node) => plugin.score(state, node));
  plugin.normalize?.(state, nodes, scores);
  return Object.fromEntries(nodes.map((node, i) => [node.name, scores[i]]));
}
