import { createHash } from 'node:crypto';
import { apiVersionOf, extraSubresourceVerbs, type KindDefinition, type NonStoredResource } from '@svc/api';
import { kubernetesGroupName, type GroupVersionForDiscovery } from '@svc/machinery';
import type { ServedApis } from './served-apis';

/**
 * The discovery documents Kubernetes clients read, in the exact shapes of `meta/v1` (APIVersions,
 * APIGroupList, APIGroup, APIResourceList) and of `apidiscovery.k8s.io` v2 / v2beta1
 * (APIGroupDiscoveryList, the aggregated form client-go asks for first).
 */

export interface ServerAddressByClientCIDR {
  clientCIDR: string;
  serverAddress: string;
}

export interface ApiVersions {
  kind: 'APIVersions';
  versions: string[];
  serverAddressByClientCIDRs: ServerAddressByClientCIDR[];
}

export interface ApiGroup {
  kind?: 'APIGroup';
  apiVersion?: 'v1';
  name: string;
  versions: GroupVersionForDiscovery[];
  preferredVersion: GroupVersionForDiscovery;
}

export interface ApiGroupList {
  kind: 'APIGroupList';
  apiVersion: 'v1';
  groups: ApiGroup[];
}

export interface ApiResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}

export interface ApiResourceList {
  kind: 'APIResourceList';
  apiVersion: 'v1';
  groupVersion: string;
  resources: ApiResource[];
}

export type AggregatedDiscoveryVersion = 'v2' | 'v2beta1';

export interface DiscoveryGroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface ApiSubresourceDiscovery {
  subresource: string;
  responseKind: DiscoveryGroupVersionKind;
  verbs: string[];
}

export interface ApiResourceDiscovery {
  resource: string;
  responseKind: DiscoveryGroupVersionKind;
  scope: 'Namespaced' | 'Cluster';
  singularResource: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: ApiSubresourceDiscovery[];
}

export interface ApiVersionDiscovery {
  version: string;
  resources: ApiResourceDiscovery[];
  freshness: 'Current' | 'Stale';
}

export interface ApiGroupDiscovery {
  metadata: { name?: string; creationTimestamp: null };
  versions: ApiVersionDiscovery[];
}

export interface ApiGroupDiscoveryList {
  kind: 'APIGroupDiscoveryList';
  apiVersion: `apidiscovery.k8s.io/${AggregatedDiscoveryVersion}`;
  metadata: Record<string, never>;
  items: ApiGroupDiscovery[];
}

/** Verbs of a resource served by the generic handlers, in Kubernetes' (sorted) order. */
export const RESOURCE_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] as const;
const SUBRESOURCE_VERBS = ['get', 'patch', 'update'];

interface SubresourceInfo {
  name: string;
  kind: DiscoveryGroupVersionKind;
  verbs: string[];
}

/** The subresources a kind is served with: status and scale from its definition, and those of its strategy (a namespace's finalize, a pod's binding). */
export function subresourcesOf(def: KindDefinition): SubresourceInfo[] {
  const out: SubresourceInfo[] = [];
  const own = { group: def.group, version: def.version, kind: def.kind };
  for (const [name, sub] of Object.entries(def.strategy.subresources ?? {})) {
    out.push({ name, kind: sub.create ? { ...sub.create.kind } : own, verbs: extraSubresourceVerbs(sub) });
  }
  if (def.subresources.scale) out.push({ name: 'scale', kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: SUBRESOURCE_VERBS });
  if (def.subresources.status) out.push({ name: 'status', kind: own, verbs: SUBRESOURCE_VERBS });
  return out;
}

/**
 * Kubernetes' storage version hash: the first 8 bytes of SHA-256 over `<group>/<version>/<kind>` of
 * the version objects are stored in, base64. Clients compare it to notice a storage migration.
 */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

function storageVersionOf(apis: ServedApis, def: KindDefinition): string {
  if (def.storage) return def.version;
  return apis.scheme.byKind(def.kind, def.group).find((d) => d.storage)?.version ?? def.version;
}

function byName<T>(key: (t: T) => string): (a: T, b: T) => number {
  return (a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
}

export function apiVersions(apis: ServedApis, serverAddress: string): ApiVersions {
  const core = apis.group('');
  return {
    kind: 'APIVersions',
    versions: core ? core.versions.map((v) => v.version) : [],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

/** The named groups, each with its served versions and preferred version. */
export function apiGroupList(apis: ServedApis): ApiGroupList {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: apis
      .groups()
      .filter((g) => g.name !== '')
      .map((g) => ({ name: g.name, versions: g.versions, preferredVersion: g.preferredVersion })),
  };
}

export function apiGroup(apis: ServedApis, name: string): ApiGroup | undefined {
  if (name === '') return undefined;
  const g = apis.group(name);
  return g && { kind: 'APIGroup', apiVersion: 'v1', name: g.name, versions: g.versions, preferredVersion: g.preferredVersion };
}

/** A non-stored resource as the legacy list shows it: no storage version hash, only the verbs its handler answers. */
function nonStoredResource(r: NonStoredResource): ApiResource {
  return {
    name: r.resource,
    singularName: r.singular,
    namespaced: r.namespaced,
    kind: r.kind,
    verbs: [...r.verbs],
    ...(r.shortNames?.length ? { shortNames: [...r.shortNames] } : {}),
  };
}

function nonStoredDiscovery(r: NonStoredResource): ApiResourceDiscovery {
  return {
    resource: r.resource,
    responseKind: { group: r.group, version: r.version, kind: r.kind },
    scope: r.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: r.singular,
    verbs: [...r.verbs],
    ...(r.shortNames?.length ? { shortNames: [...r.shortNames] } : {}),
  };
}

/**
 * The short names and categories discovery shows for a kind: a group served under both names shows them
 * under Kubernetes' name only (see the scheme's twins), so that kubectl resolves `crd` or `all` once.
 */
function namesOf(apis: ServedApis, def: KindDefinition): { shortNames?: string[]; categories?: string[] } {
  const twin = kubernetesGroupName(def.group);
  if (def.aliasOf === undefined && twin !== undefined && apis.group(twin) !== undefined) return {};
  return {
    ...(def.shortNames.length ? { shortNames: [...def.shortNames] } : {}),
    ...(def.categories.length ? { categories: [...def.categories] } : {}),
  };
}

export function apiResourceList(apis: ServedApis, group: string, version: string): ApiResourceList | undefined {
  const defs = apis.kinds(group, version);
  const nonStored = apis.nonStored(group, version);
  if (!defs.length && !nonStored.length) return undefined;
  const resources: ApiResource[] = [];
  for (const def of [...defs].sort(byName((d) => d.resource))) {
    resources.push({
      name: def.resource,
      singularName: def.singular,
      namespaced: def.namespaced,
      kind: def.kind,
      verbs: [...RESOURCE_VERBS],
      ...namesOf(apis, def),
      storageVersionHash: storageVersionHash(def.group, storageVersionOf(apis, def), def.kind),
    });
    for (const sub of subresourcesOf(def)) {
      const foreign = sub.kind.group !== def.group || sub.kind.version !== def.version;
      resources.push({
        name: `${def.resource}/${sub.name}`,
        singularName: '',
        namespaced: def.namespaced,
        ...(foreign ? { group: sub.kind.group, version: sub.kind.version } : {}),
        kind: sub.kind.kind,
        verbs: [...sub.verbs],
      });
    }
  }
  for (const r of nonStored) resources.push(nonStoredResource(r));
  resources.sort(byName((r) => r.name));
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: apiVersionOf({ group, version }), resources };
}

function resourceDiscovery(apis: ServedApis, def: KindDefinition): ApiResourceDiscovery {
  const subresources = subresourcesOf(def).map((s) => ({ subresource: s.name, responseKind: { ...s.kind }, verbs: [...s.verbs] }));
  return {
    resource: def.resource,
    responseKind: { group: def.group, version: def.version, kind: def.kind },
    scope: def.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: def.singular,
    verbs: [...RESOURCE_VERBS],
    ...namesOf(apis, def),
    ...(subresources.length ? { subresources } : {}),
  };
}

function groupDiscovery(apis: ServedApis, name: string): ApiGroupDiscovery | undefined {
  const g = apis.group(name);
  if (!g) return undefined;
  return {
    metadata: name ? { name, creationTimestamp: null } : { creationTimestamp: null },
    versions: g.versions.map((v) => ({
      version: v.version,
      resources: [...apis.kinds(name, v.version).map((def) => resourceDiscovery(apis, def)), ...apis.nonStored(name, v.version).map(nonStoredDiscovery)].sort(
        byName((r) => r.resource),
      ),
      freshness: 'Current' as const,
    })),
  };
}

/** The aggregated answer of `/api` (the core group alone) or `/apis` (every named group). */
export function aggregatedDiscovery(apis: ServedApis, root: 'api' | 'apis', version: AggregatedDiscoveryVersion): ApiGroupDiscoveryList {
  const names =
    root === 'api'
      ? ['']
      : apis
          .groups()
          .map((g) => g.name)
          .filter((n) => n !== '');
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `apidiscovery.k8s.io/${version}`,
    metadata: {},
    items: names.map((n) => groupDiscovery(apis, n)).filter((g): g is ApiGroupDiscovery => g !== undefined),
  };
}
