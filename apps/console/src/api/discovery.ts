import { api } from './client';

/** One resource the server serves, as aggregated discovery describes it. */
export interface DiscoveredResource {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  shortNames: string[];
  subresources: string[];
  /** The group's preferred version serves it (the one listed and linked to). */
  preferred: boolean;
}

interface DiscoveryList {
  items?: Array<{
    metadata?: { name?: string };
    versions?: Array<{
      version: string;
      resources?: Array<{
        resource: string;
        responseKind?: { kind?: string };
        scope?: string;
        verbs?: string[];
        shortNames?: string[];
        subresources?: Array<{ subresource: string }>;
      }>;
    }>;
  }>;
}

const ACCEPT = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';

/** Every resource of every group, from the two aggregated discovery documents (/api and /apis). */
export async function discover(): Promise<DiscoveredResource[]> {
  const [core, groups] = await Promise.all([api<DiscoveryList>('/api', { accept: ACCEPT }), api<DiscoveryList>('/apis', { accept: ACCEPT })]);
  const out: DiscoveredResource[] = [];
  for (const item of [...(core.items ?? []), ...(groups.items ?? [])]) {
    const group = item.metadata?.name ?? '';
    (item.versions ?? []).forEach((v, index) => {
      for (const r of v.resources ?? []) {
        out.push({
          group,
          version: v.version,
          resource: r.resource,
          kind: r.responseKind?.kind ?? r.resource,
          namespaced: r.scope === 'Namespaced',
          verbs: r.verbs ?? [],
          shortNames: r.shortNames ?? [],
          subresources: (r.subresources ?? []).map((s) => s.subresource),
          preferred: index === 0,
        });
      }
    });
  }
  return out;
}

export function apiVersionOf(r: { group: string; version: string }): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}

/** The collection path of a resource, in a namespace or across all. */
export function collectionPath(r: Pick<DiscoveredResource, 'group' | 'version' | 'resource' | 'namespaced'>, namespace?: string): string {
  const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  return r.namespaced && namespace ? `${base}/namespaces/${encodeURIComponent(namespace)}/${r.resource}` : `${base}/${r.resource}`;
}

export function objectPath(r: Pick<DiscoveredResource, 'group' | 'version' | 'resource' | 'namespaced'>, namespace: string | undefined, name: string): string {
  return `${collectionPath(r, namespace)}/${encodeURIComponent(name)}`;
}

/** The resource of a kind in an apiVersion, as owner references and events name objects. */
export function resourceForKind(resources: DiscoveredResource[], apiVersion: string | undefined, kind: string | undefined): DiscoveredResource | undefined {
  if (!kind) return undefined;
  const [group, version] = apiVersion?.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  return (
    resources.find((r) => r.group === group && r.version === version && r.kind === kind && !r.resource.includes('/')) ??
    resources.find((r) => r.group === group && r.kind === kind && r.preferred && !r.resource.includes('/'))
  );
}
