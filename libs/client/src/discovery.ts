import { specGroupName } from '@svc/machinery';
import type { RestClient } from './rest-client';
import type { ResourceInfo } from './resource-info';

/** One resource type the server serves, as its discovery documents describe it. */
export interface ServedResource extends ResourceInfo {
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
}

interface ApiResource {
  name: string;
  namespaced: boolean;
  kind: string;
  verbs?: string[];
  shortNames?: string[];
  categories?: string[];
}

interface ApiGroupList {
  groups?: Array<{ name: string; preferredVersion?: { version: string }; versions?: Array<{ version: string }> }>;
}

/**
 * The resource types the server serves at each group's preferred version (the core group's `v1`),
 * subresources left out: what a controller that acts on "every kind" walks (the namespace cleaner,
 * the garbage collector). A group version whose document cannot be read is skipped and named in
 * `failed`, as Kubernetes' partial discovery does, so one broken group does not stop the rest.
 * A group served under both of its names (`coordination.svc.io` and `coordination.k8s.io`) is one
 * group on one storage: it is walked once, under the name discovery lists first.
 */
export async function discoverServedResources(rest: RestClient): Promise<{ resources: ServedResource[]; failed: string[] }> {
  const groupVersions: Array<{ group: string; version: string }> = [{ group: '', version: 'v1' }];
  const groups = await rest.request<ApiGroupList>({ method: 'GET', path: '/apis' });
  const walked = new Set<string>();
  for (const g of groups.groups ?? []) {
    if (walked.has(specGroupName(g.name))) continue;
    walked.add(specGroupName(g.name));
    const version = g.preferredVersion?.version ?? g.versions?.[0]?.version;
    if (version) groupVersions.push({ group: g.name, version });
  }
  const failed: string[] = [];
  const lists = await Promise.all(
    groupVersions.map(async ({ group, version }) => {
      const path = group ? `/apis/${group}/${version}` : `/api/${version}`;
      try {
        const list = await rest.request<{ resources?: ApiResource[] }>({ method: 'GET', path });
        return (list.resources ?? [])
          .filter((r) => !r.name.includes('/'))
          .map((r): ServedResource => ({
            group,
            version,
            resource: r.name,
            namespaced: r.namespaced,
            kind: r.kind,
            verbs: r.verbs ?? [],
            ...(r.shortNames ? { shortNames: r.shortNames } : {}),
            ...(r.categories ? { categories: r.categories } : {}),
          }));
      } catch {
        failed.push(group ? `${group}/${version}` : version);
        return [];
      }
    }),
  );
  return { resources: lists.flat(), failed };
}
