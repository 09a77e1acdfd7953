/**
 * Classifies a request the way Kubernetes' RequestInfoFactory does, so that metrics, in-flight limits,
 * timeouts and the resource handlers all agree on what a path means.
 */

import { storedNamespace } from '@svc/api';

export type ResourceVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection' | 'proxy';

export interface RequestInfo {
  /** False for paths outside `/api` and `/apis` (health, metrics, version, discovery roots). */
  isResourceRequest: boolean;
  /** The path without the query. */
  path: string;
  /** A ResourceVerb for resource requests (empty for an unknown method); the lowercase HTTP method otherwise. */
  verb: string;
  /** `api` or `apis`; empty for non-resource requests. */
  apiPrefix: string;
  /** Empty for the core group. */
  group: string;
  version: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** The path segments from the resource on: `resource/name/subresource/...`. */
  parts: string[];
  /**
   * False when the path has an empty segment (`//`, or a trailing `/`). Such a path is classified
   * like its neighbours (for metrics and authorization) but never matches a resource route.
   */
  exact: boolean;
  /** The path named the namespace before the resource (`namespaces/<ns>/<resource>...`). */
  namespacedPath: boolean;
  /** The namespace as the path named it, when that was a system namespace's Kubernetes name (`namespace` is the stored one). */
  requestedNamespace?: string;
}

/** Query values as Node's URLSearchParams or an Express-style parsed object. */
export type QueryInput = URLSearchParams | string | Record<string, unknown> | undefined;

const API_PREFIXES = new Set(['api', 'apis']);
const GROUPLESS_API_PREFIXES = new Set(['api']);
// Verbs that may stand as a path segment in front of the resource (`/api/v1/watch/pods`).
const SPECIAL_VERBS = new Set(['proxy', 'watch']);
// After `proxy/<resource>/<name>` the rest of the path belongs to the proxied target.
const SPECIAL_VERBS_NO_SUBRESOURCES = new Set(['proxy']);
// Subresources of a namespace object, which would otherwise read as a resource inside the namespace.
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

const VERB_BY_METHOD: Record<string, ResourceVerb> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

export function requestInfo(method: string, path: string, query?: QueryInput): RequestInfo {
  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    group: '',
    version: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
    exact: !hasEmptySegment(path),
    namespacedPath: false,
  };
  const rest = apiRoot(info, splitPath(path));
  if (rest === undefined) return info;
  let parts = rest;
  if (SPECIAL_VERBS.has(parts[0])) {
    if (parts.length < 2) {
      // `/api/v1/watch` names no resource: not a resource request after all.
      return { ...info, isResourceRequest: false, apiPrefix: '', group: '', version: '', verb: method.toLowerCase() };
    }
    info.verb = parts[0];
    parts = parts.slice(1);
  } else {
    info.verb = VERB_BY_METHOD[method.toUpperCase()] ?? '';
  }
  parts = namespaceOf(info, parts);
  info.parts = parts;
  if (parts.length >= 3 && !SPECIAL_VERBS_NO_SUBRESOURCES.has(info.verb)) info.subresource = parts[2];
  // What follows a proxy subresource is the target's path: a trailing slash or an empty segment there
  // is the target's business; the path up to the subresource must still be exact.
  if (info.subresource === 'proxy' && !info.exact) info.exact = !hasEmptySegment(pathBefore(path, parts.length - 3));
  if (parts.length >= 2) info.name = parts[1];
  if (parts.length >= 1) info.resource = parts[0];
  collectionVerb(info, toSearchParams(query));
  return info;
}

/**
 * `/api/<version>` or `/apis/<group>/<version>` followed by at least a resource: the info becomes a
 * resource request of that group and version, and the segments after the version are returned.
 */
function apiRoot(info: RequestInfo, all: string[]): string[] | undefined {
  if (all.length < 3 || !API_PREFIXES.has(all[0])) return undefined;
  const apiPrefix = all[0];
  let parts = all.slice(1);
  let group = '';
  if (!GROUPLESS_API_PREFIXES.has(apiPrefix)) {
    // Group, version and at least a resource must follow `/apis`.
    if (parts.length < 3) return undefined;
    group = parts[0];
    parts = parts.slice(1);
  }
  info.isResourceRequest = true;
  info.apiPrefix = apiPrefix;
  info.group = group;
  info.version = parts[0];
  return parts.slice(1);
}

/**
 * `namespaces/<ns>/<resource>...` is a namespaced resource unless the third segment is a namespace
 * subresource; a system namespace's Kubernetes name is the namespace of the spec's name, for every
 * filter after this one. Returns the segments from the resource on.
 */
function namespaceOf(info: RequestInfo, parts: string[]): string[] {
  if (parts[0] !== 'namespaces' || parts.length <= 1) return parts;
  const stored = storedNamespace(parts[1]);
  if (stored !== parts[1]) info.requestedNamespace = parts[1];
  parts[1] = stored;
  info.namespace = stored;
  if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2])) {
    info.namespacedPath = true;
    return parts.slice(2);
  }
  return parts;
}

/** A get or delete of no name is a list (or a watch), or a deletecollection; a list selecting one name by field names it. */
function collectionVerb(info: RequestInfo, params: URLSearchParams): void {
  if (info.name === '' && info.verb === 'get') {
    info.verb = isWatchRequested(params) ? 'watch' : 'list';
    const selectedName = exactNameFromFieldSelector(params.get('fieldSelector'));
    if (selectedName !== undefined && isValidPathSegmentName(selectedName)) info.name = selectedName;
  }
  if (info.name === '' && info.verb === 'delete') info.verb = 'deletecollection';
}

/** The path without its last `count` segments (a trailing slash counted as none). */
function pathBefore(path: string, count: number): string {
  let end = path.length;
  while (end > 1 && path.charCodeAt(end - 1) === SLASH) end--;
  for (let i = 0; i < count; i++) end = path.lastIndexOf('/', end - 1);
  return path.slice(0, Math.max(end, 0));
}

function hasEmptySegment(path: string): boolean {
  return path.includes('//') || (path.length > 1 && path.endsWith('/'));
}

// Segments are decoded one by one (Kubernetes reads the decoded path); an encoded slash stays inside its segment.
function splitPath(path: string): string[] {
  let start = 0;
  let end = path.length;
  while (start < end && path.charCodeAt(start) === SLASH) start++;
  while (end > start && path.charCodeAt(end - 1) === SLASH) end--;
  if (start === end) return [];
  const segments = path.slice(start, end).split('/');
  // Most paths have nothing to decode.
  return path.includes('%') ? segments.map(decodeSegment) : segments;
}

const SLASH = 0x2f;

function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Kubernetes reads the first `watch` value: anything but `0` and `false` (any case) turns it on. */
function isWatchRequested(params: URLSearchParams): boolean {
  const values = params.getAll('watch');
  if (values.length === 0) return false;
  const first = values[0].toLowerCase();
  return first !== '0' && first !== 'false';
}

/**
 * The name a field selector pins with `metadata.name=<n>` or `metadata.name==<n>` among AND-ed terms,
 * as Kubernetes' RequiresExactMatch finds it (so a list narrowed to one name is authorized like a get).
 */
export function exactNameFromFieldSelector(selector: string | null | undefined): string | undefined {
  if (!selector) return undefined;
  for (const term of splitUnescaped(selector, ',')) {
    const match = /^\s*metadata\.name\s*(==|=)(.*)$/.exec(term);
    if (match && !match[2].startsWith('=')) return unescapeSelectorValue(match[2].trim());
  }
  return undefined;
}

function splitUnescaped(value: string, separator: string): string[] {
  const out: string[] = [];
  let current = '';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i];
    if (ch === '\\' && i + 1 < value.length) {
      current += ch + value[i + 1];
      i++;
    } else if (ch === separator) {
      out.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  out.push(current);
  return out;
}

function unescapeSelectorValue(value: string): string {
  return value.replace(/\\(.)/g, '$1');
}

/** Kubernetes' IsValidPathSegmentName: not `.` or `..`, and no `/` or `%`. */
export function isValidPathSegmentName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('%');
}

function toSearchParams(query: QueryInput): URLSearchParams {
  if (query === undefined) return new URLSearchParams();
  if (query instanceof URLSearchParams) return query;
  if (typeof query === 'string') return new URLSearchParams(query.startsWith('?') ? query.slice(1) : query);
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    const values = Array.isArray(value) ? value : [value];
    for (const item of values) {
      if (item === undefined || item === null) continue;
      params.append(key, typeof item === 'string' ? item : String(item));
    }
  }
  return params;
}
