/**
 * Key layout: `<prefix>/<group>/<resource>/<namespace>/<name>` for namespaced objects and
 * `<prefix>/<group>/<resource>/<name>` for cluster-scoped ones (a resource is one or the other, never
 * both, so the two shapes cannot collide). The legacy core group `""` is stored under the segment
 * `core`: API groups other than the core group contain a dot, so no real group is named `core`.
 */
export const CORE_GROUP_SEGMENT = 'core';

export interface ResourceKeyParts {
  /** `--store-prefix`, default `/registry`. */
  prefix: string;
  /** API group; `""` is the core group. */
  group: string;
  /** Plural resource name, e.g. `pods`. */
  resource: string;
  /** Namespace for namespaced objects; unset or `""` for cluster-scoped ones. */
  namespace?: string;
}

export interface ObjectKeyParts extends ResourceKeyParts {
  name: string;
}

/** The storage key of one object (`<prefix>/<group>/<resource>[/<namespace>]/<name>`). */
export function objectStorageKey(parts: ObjectKeyParts): string {
  return `${resourcePath(parts)}${namespacePath(parts.namespace)}${segment('name', parts.name)}`;
}

/**
 * The prefix of every object of a resource (no namespace) or of one namespace. It ends with `/`, so the
 * prefix of namespace `a` never matches objects of namespace `ab`.
 */
export function prefixKey(parts: ResourceKeyParts): string {
  return `${resourcePath(parts)}${namespacePath(parts.namespace)}`;
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

/** The smallest key greater than `key` in bytewise order. */
export function keyAfter(key: string): string {
  return `${key}\u0000`;
}

function resourcePath(parts: ResourceKeyParts): string {
  const prefix = parts.prefix.endsWith('/') ? parts.prefix.slice(0, -1) : parts.prefix;
  const group = parts.group === '' ? CORE_GROUP_SEGMENT : segment('group', parts.group);
  return `${prefix}/${group}/${segment('resource', parts.resource)}/`;
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
