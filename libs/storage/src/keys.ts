/**
 * Key layout, as Kubernetes lays out etcd under `--etcd-prefix` (so that etcd's own tools find objects
 * where a Kubernetes operator looks for them):
 *
 *   <prefix>/<resource path>/<namespace>/<name>   namespaced objects
 *   <prefix>/<resource path>/<name>               cluster-scoped objects
 *
 * The resource path of a built-in resource is its plural alone (`pods`, `deployments`, `leases`),
 * except for the few Kubernetes keeps elsewhere (`minions` for nodes, `services/specs`,
 * `services/endpoints`, `controllers` for replication controllers, `ingress`); that of a custom resource
 * is `<group>/<resource>`, and so are those of the API extension servers' own kinds
 * (`apiextensions.k8s.io/customresourcedefinitions`). A resource is namespaced or cluster-scoped,
 * never both, so the two shapes cannot collide.
 *
 * Built-in or custom: callers that know say so (`builtIn`); otherwise a group without a dot (only
 * built-in groups may have none), the core group and the `*.k8s.io` / `*.svc.io` groups are built in,
 * any other group is a custom resource's.
 */
export interface ResourceKeyParts {
  /** `--store-prefix`, default `/registry`. */
  prefix: string;
  /** API group; `""` is the core group. Either name of a group (`*.svc.io`, `*.k8s.io`) gives the same path. */
  group: string;
  /** Plural resource name, e.g. `pods`. */
  resource: string;
  /** Namespace for namespaced objects; unset or `""` for cluster-scoped ones. */
  namespace?: string;
  /** Whether the server builds the resource in (else it is a custom resource); see above for the default. */
  builtIn?: boolean;
}

export interface ObjectKeyParts extends ResourceKeyParts {
  name: string;
}

/**
 * Where Kubernetes keeps the built-in resources that are not under their plural (its storage factory's
 * resource prefixes), by `group/resource` with the group's Kubernetes name.
 */
const KUBERNETES_RESOURCE_PATHS: ReadonlyMap<string, string> = new Map([
  ['/replicationcontrollers', 'controllers'],
  ['/endpoints', 'services/endpoints'],
  ['/nodes', 'minions'],
  ['/services', 'services/specs'],
  ['extensions/ingresses', 'ingress'],
  ['networking.k8s.io/ingresses', 'ingress'],
  ['apiextensions.k8s.io/customresourcedefinitions', 'apiextensions.k8s.io/customresourcedefinitions'],
  ['apiregistration.k8s.io/apiservices', 'apiregistration.k8s.io/apiservices'],
]);

/** The Kubernetes name of a group (`rbac.authorization.svc.io` is `rbac.authorization.k8s.io`). */
function kubernetesGroup(group: string): string {
  return group.endsWith('.svc.io') ? `${group.slice(0, -'.svc.io'.length)}.k8s.io` : group;
}

function isBuiltInGroup(group: string): boolean {
  return !group.includes('.') || group.endsWith('.k8s.io') || group.endsWith('.svc.io');
}

/** The resource's path under the prefix, without slashes at either end. */
export function resourcePath(parts: Pick<ResourceKeyParts, 'group' | 'resource' | 'builtIn'>): string {
  const resource = segment('resource', parts.resource);
  const group = kubernetesGroup(parts.group);
  const special = KUBERNETES_RESOURCE_PATHS.get(`${group}/${resource}`);
  if (special !== undefined) return special;
  if (parts.builtIn ?? isBuiltInGroup(group)) return resource;
  return `${segment('group', parts.group)}/${resource}`;
}

/** The storage key of one object (`<prefix>/<resource path>[/<namespace>]/<name>`). */
export function objectStorageKey(parts: ObjectKeyParts): string {
  return `${resourcePrefix(parts)}${namespacePath(parts.namespace)}${segment('name', parts.name)}`;
}

/**
 * The prefix of every object of a resource (no namespace) or of one namespace. It ends with `/`, so the
 * prefix of namespace `a` never matches objects of namespace `ab`.
 */
export function prefixKey(parts: ResourceKeyParts): string {
  return `${resourcePrefix(parts)}${namespacePath(parts.namespace)}`;
}

/**
 * The group and resource a key belongs to, and the prefix of that resource's keys it starts with, for
 * code that sees keys only (encryption at rest). A
 * built-in resource's key does not name its group: `groupOf` gives it (from the server's scheme), else
 * it is taken for the core group's. Undefined for a key outside the prefix. Keys of the layout before
 * this one (`<prefix>/<group, or "core">/<resource>/...`, which stores written by earlier versions hold
 * until the API server moves them) are read too: their first segment is `core` or a built-in group
 * (`isBuiltInGroup`), never a resource.
 */
export function resourceOfKey(
  key: string,
  storePrefix: string,
  groupOf?: (resource: string) => string | undefined,
  isBuiltInGroup?: (group: string) => boolean,
): { group: string; resource: string; resourcePrefix: string } | undefined {
  const prefix = storePrefix.endsWith('/') ? storePrefix : `${storePrefix}/`;
  if (!key.startsWith(prefix)) return undefined;
  const rest = key.slice(prefix.length);
  const [first, second] = rest.split('/', 2);
  const found = (group: string, resource: string, path: string) => ({ group, resource, resourcePrefix: `${prefix}${path}/` });
  if (first === LEGACY_CORE_SEGMENT) return found('', second ?? '', `${first}/${second ?? ''}`);
  if (isBuiltInGroup?.(first) && second !== undefined) return found(first, second, `${first}/${second}`);
  for (const [groupResource, path] of KUBERNETES_RESOURCE_PATHS) {
    if (rest.startsWith(`${path}/`)) {
      const slash = groupResource.indexOf('/');
      return found(groupResource.slice(0, slash), groupResource.slice(slash + 1), path);
    }
  }
  if (first.includes('.')) return found(first, second ?? '', `${first}/${second ?? ''}`);
  return found(groupOf?.(first) ?? '', first, first);
}

/**
 * The half-open range [lo, hi) of keys starting with `prefix`, in bytewise (UTF-8) order. `hi` is the
 * prefix with its last character incremented; for the empty prefix it is the greatest code point.
 */
export function prefixRange(prefix: string): { lo: string; hi: string } {
  if (prefix === '') return { lo: '', hi: String.fromCodePoint(0x10ffff) };
  const last = prefix.charCodeAt(prefix.length - 1);
  return { lo: prefix, hi: prefix.slice(0, -1) + String.fromCharCode(last + 1) };
}

/** The core group's segment in the layout before this one. */
export const LEGACY_CORE_SEGMENT = 'core';

/** A resource's prefix in the layout before this one: `<prefix>/<group, or "core">/<resource>/`. */
export function legacyPrefixKey(parts: Pick<ResourceKeyParts, 'prefix' | 'group' | 'resource'>): string {
  const prefix = parts.prefix.endsWith('/') ? parts.prefix.slice(0, -1) : parts.prefix;
  return `${prefix}/${parts.group === '' ? LEGACY_CORE_SEGMENT : segment('group', parts.group)}/${segment('resource', parts.resource)}/`;
}

/** The smallest key greater than `key` in bytewise order. */
export function keyAfter(key: string): string {
  return `${key}\u0000`;
}

function resourcePrefix(parts: ResourceKeyParts): string {
  const prefix = parts.prefix.endsWith('/') ? parts.prefix.slice(0, -1) : parts.prefix;
  return `${prefix}/${resourcePath(parts)}/`;
}

function namespacePath(namespace: string | undefined): string {
  return namespace ? `${segment('namespace', namespace)}/` : '';
}

function segment(what: string, value: string): string {
  if (value === '' || value.includes('/') || value === '.' || value === '..') {
    throw new TypeError(`invalid ${what} for a storage key: ${JSON.stringify(value)}`);
  }
  return value;
}
