import type { AggregatedGroup } from '../aggregator/aggregated-discovery';
import type { ApiGroup, ApiGroupDiscovery, ApiGroupDiscoveryList, ApiGroupList } from './discovery-documents';
import { discoveryGroupPriority } from './group-priority';
import type { MuxRoute } from '../serving/mux';

/**
 * What the aggregator adds to discovery: the groups of remote APIServices as last fetched, the group
 * document of a group with a remote version, and the handler of a remote group version (its discovery
 * is the remote server's to answer).
 */
export interface AggregatedApis {
  groups(): AggregatedGroup[];
  groupDocument(group: string): ApiGroup | undefined;
  versionHandler(group: string, version: string): MuxRoute['handler'] | undefined;
}

/** A server without aggregation. */
export const NO_AGGREGATED_APIS: AggregatedApis = { groups: () => [], groupDocument: () => undefined, versionHandler: () => undefined };

function byPriority<T>(entries: Array<{ name: string; priority: number; value: T }>): T[] {
  return entries.sort((a, b) => b.priority - a.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((e) => e.value);
}

function legacyGroup(group: AggregatedGroup): ApiGroup {
  const versions = group.versions.map((v) => ({ groupVersion: `${group.name}/${v.version}`, version: v.version }));
  return { name: group.name, versions, preferredVersion: versions[0] };
}

/**
 * `/apis` with the aggregated groups among the local ones, every group at its priority (kube-aggregator
 * lists every APIService's group, reachable or not); a remote version of a local group is added to it.
 */
export function mergeGroupList(local: ApiGroupList, aggregated: readonly AggregatedGroup[]): ApiGroupList {
  if (aggregated.length === 0) return local;
  const entries = local.groups.map((g) => ({ name: g.name, priority: discoveryGroupPriority(g.name), value: { ...g, versions: [...g.versions] } }));
  for (const group of aggregated) {
    const known = entries.find((e) => e.name === group.name);
    if (known === undefined) {
      entries.push({ name: group.name, priority: group.priority, value: legacyGroup(group) });
      continue;
    }
    for (const v of legacyGroup(group).versions) if (!known.value.versions.some((k) => k.version === v.version)) known.value.versions.push(v);
  }
  return { ...local, groups: byPriority(entries) };
}

function discoveryGroup(group: AggregatedGroup): ApiGroupDiscovery {
  return {
    metadata: { name: group.name, creationTimestamp: null },
    versions: group.versions.map((v) => ({ version: v.version, resources: v.resources, freshness: v.stale ? 'Stale' : 'Current' })),
  };
}

/** The aggregated `/apis` with the aggregated groups merged in the same order. */
export function mergeGroupDiscoveryList(local: ApiGroupDiscoveryList, aggregated: readonly AggregatedGroup[]): ApiGroupDiscoveryList {
  if (aggregated.length === 0) return local;
  const entries = local.items.map((g) => ({
    name: g.metadata.name ?? '',
    priority: discoveryGroupPriority(g.metadata.name ?? ''),
    value: { ...g, versions: [...g.versions] },
  }));
  for (const group of aggregated) {
    const known = entries.find((e) => e.name === group.name);
    if (known === undefined) {
      entries.push({ name: group.name, priority: group.priority, value: discoveryGroup(group) });
      continue;
    }
    for (const v of discoveryGroup(group).versions) if (!known.value.versions.some((k) => k.version === v.version)) known.value.versions.push(v);
  }
  return { ...local, items: byPriority(entries) };
}
