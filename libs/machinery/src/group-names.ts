/**
 * The two names of an API group. The specification names groups `<name>.svc.io`; the tools users
 * already have (kubectl, client libraries, manifests, Helm charts) name the same groups
 * `<name>.k8s.io`. The server serves both on one storage, and everything that compares groups
 * (owner references, the garbage collector, field managers, authorization and webhook rules)
 * compares them through these functions, so that the two names are one group.
 */

/** The suffix of the specification's group names. */
export const SPEC_GROUP_SUFFIX = '.svc.io';
/** The suffix Kubernetes' own groups carry. */
export const KUBERNETES_GROUP_SUFFIX = '.k8s.io';

/** `rbac.authorization.k8s.io` -> `rbac.authorization.svc.io`; any other name is returned as it is. */
export function specGroupName(group: string): string {
  return group.endsWith(KUBERNETES_GROUP_SUFFIX) && group.length > KUBERNETES_GROUP_SUFFIX.length
    ? `${group.slice(0, -KUBERNETES_GROUP_SUFFIX.length)}${SPEC_GROUP_SUFFIX}`
    : group;
}

/** `coordination.svc.io` -> `coordination.k8s.io`; undefined for a group with no Kubernetes twin (`apps`, `""`). */
export function kubernetesGroupName(group: string): string | undefined {
  return group.endsWith(SPEC_GROUP_SUFFIX) && group.length > SPEC_GROUP_SUFFIX.length
    ? `${group.slice(0, -SPEC_GROUP_SUFFIX.length)}${KUBERNETES_GROUP_SUFFIX}`
    : undefined;
}

/** Whether two group names name one group (equal, or a `svc.io` name and its `k8s.io` twin). */
export function sameGroup(a: string, b: string): boolean {
  return a === b || specGroupName(a) === specGroupName(b);
}

/** The group of an `apiVersion` (`apps/v1` -> `apps`, `v1` -> the core group `""`). */
export function groupOfApiVersion(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** The version of an `apiVersion` (`apps/v1` -> `v1`, `v1` -> `v1`). */
export function versionOfApiVersion(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
}

/** An `apiVersion` with its group under the specification's name: `coordination.k8s.io/v1` -> `coordination.svc.io/v1`. */
export function specApiVersion(apiVersion: string): string {
  const group = groupOfApiVersion(apiVersion);
  const spec = specGroupName(group);
  return spec === group ? apiVersion : `${spec}/${versionOfApiVersion(apiVersion)}`;
}

/** Whether two `apiVersion`s name one group version. */
export function sameApiVersion(a: string, b: string): boolean {
  return a === b || specApiVersion(a) === specApiVersion(b);
}
