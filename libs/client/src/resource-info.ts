import type { KindDefinition, Subresources } from '@svc/api';

/** What a client needs to address one resource type: its group version, plural and scope. */
export interface ResourceInfo {
  /** `""` for the core group. */
  group: string;
  version: string;
  /** Plural name used in paths. */
  resource: string;
  namespaced: boolean;
  /** When known, writes fill in `apiVersion` and `kind` objects leave out. */
  kind?: string;
  /** When known, `getScale` refuses a kind without the scale subresource before any request. */
  subresources?: Subresources;
}

export function resourceInfo(def: KindDefinition | ResourceInfo): ResourceInfo {
  const { group, version, resource, namespaced, kind, subresources } = def;
  return { group, version, resource, namespaced, kind, subresources };
}

export function apiVersionOfInfo(info: Pick<ResourceInfo, 'group' | 'version'>): string {
  return info.group ? `${info.group}/${info.version}` : info.version;
}

/** `/api/v1` for the core group, `/apis/<group>/<version>` for named groups. */
export function groupVersionPath(info: Pick<ResourceInfo, 'group' | 'version'>): string {
  return info.group ? `/apis/${encodeURIComponent(info.group)}/${encodeURIComponent(info.version)}` : `/api/${encodeURIComponent(info.version)}`;
}

/**
 * The collection path; for a namespaced resource without a namespace, the path across all
 * namespaces. A namespace given for a cluster-scoped resource is ignored, since such objects
 * carry none.
 */
export function collectionPath(info: ResourceInfo, namespace?: string): string {
  const scope = info.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${groupVersionPath(info)}${scope}/${encodeURIComponent(info.resource)}`;
}

/** The path of one object, or of one of its subresources. */
export function objectPath(info: ResourceInfo, name: string, namespace?: string, subresource?: string): string {
  const base = `${collectionPath(info, namespace)}/${encodeURIComponent(name)}`;
  return subresource ? `${base}/${encodeURIComponent(subresource)}` : base;
}
