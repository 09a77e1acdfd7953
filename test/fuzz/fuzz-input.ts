/**
 * One generated request, as a plain description: fast-check generates, prints and shrinks it, and
 * the runner turns it into bytes only when it sends it. Large hostile bodies are described by their
 * shape (`{ hostile: 'deep-json', depth: 100000 }`), so a counterexample prints in a few lines and
 * the same description always gives the same bytes.
 */

/** The families of inputs the summary counts. */
export const FAMILIES = [
  'create',
  'update',
  'patch',
  'apply',
  'get',
  'list',
  'watch',
  'delete',
  'deletecollection',
  'subresource',
  'path',
  'headers',
  'hostile',
  'nonresource',
] as const;
export type Family = (typeof FAMILIES)[number];

/** A body given as a value: encoded when sent, after placeholders are resolved. */
export interface ValueBody {
  encoding: 'json' | 'yaml' | 'svc-protobuf' | 'kubernetes-protobuf';
  value: unknown;
  /** Set `metadata.resourceVersion` to the target object's live one first (an update that can succeed). */
  liveResourceVersion?: boolean;
}

/** A body given as text (sent as UTF-8 after placeholders are resolved) or base64 bytes. */
export interface RawBody {
  encoding: 'text' | 'base64';
  data: string;
}

/** A body made by one of the hostile-shape builders (hostile-bodies.ts), from these parameters. */
export interface HostileBody {
  encoding: 'hostile';
  shape: string;
  params: Record<string, string | number | boolean>;
}

export type BodySpec = ValueBody | RawBody | HostileBody;

export interface FuzzInput {
  family: Family;
  /** What this input is within its family, for the summary (`json-patch`, `deep-yaml`, `bad-timeoutSeconds`). */
  label: string;
  method: string;
  /**
   * The request path as sent, query excluded. `{ns}` stands for the current fixture namespace (it
   * changes when a namespace is lost to a legitimate delete), so a replayed input names a live one.
   */
  path: string;
  /** Query pairs, percent-encoded when sent; ignored when `rawQuery` is set. */
  query: Array<[string, string]>;
  /** The query string as sent, unencoded (malformed queries). */
  rawQuery?: string;
  headers: Array<[string, string]>;
  body?: BodySpec;
  /**
   * Why this request must be refused (a 4xx): an empty path segment, a malformed parameter, a patch
   * that changes the object's identity, a body past the nesting limit, ... Empty when any 2xx may do.
   */
  mustRefuse: string[];
  /**
   * Why Kubernetes refuses it where neither the issue nor spec 1 says so (a malformed `timeout`, `force`
   * on a non-apply patch): an accepted one is reported as a divergence, not a failure.
   */
  shouldRefuse?: string[];
  /** For a watch: the longest it may stay open, from its timeoutSeconds (plus 5 s). */
  watchDeadlineMs?: number;
  /**
   * The object the path names, when it is one: its identity is checked on an accepted write, and its
   * live resourceVersion fills `liveResourceVersion` bodies.
   */
  target?: { apiVersion: string; kind: string; namespace: string; name: string };
}

/** The fixture namespace placeholder in paths and bodies. */
export const NS = '{ns}';

export function resolvePlaceholders(text: string, namespace: string): string {
  return text.split(NS).join(namespace);
}

/** Deep copy of a JSON-like value with the namespace placeholder resolved in every string. */
export function resolveValue(value: unknown, namespace: string): unknown {
  if (typeof value === 'string') return resolvePlaceholders(value, namespace);
  if (Array.isArray(value)) return value.map((item) => resolveValue(item, namespace));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[resolvePlaceholders(key, namespace)] = resolveValue(item, namespace);
    return out;
  }
  return value;
}

/** `path?query` as sent. */
export function requestTarget(input: FuzzInput, namespace: string): string {
  const path = resolvePlaceholders(input.path, namespace);
  if (input.rawQuery !== undefined) return `${path}?${resolvePlaceholders(input.rawQuery, namespace)}`;
  if (input.query.length === 0) return path;
  const params = input.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(resolvePlaceholders(v, namespace))}`);
  return `${path}?${params.join('&')}`;
}

/** The query as a map of the values sent (first value of each name), for the oracles. */
export function queryValues(input: FuzzInput): Map<string, string> {
  const values = new Map<string, string>();
  if (input.rawQuery !== undefined) {
    for (const [key, value] of new URLSearchParams(input.rawQuery)) if (!values.has(key)) values.set(key, value);
    return values;
  }
  for (const [key, value] of input.query) if (!values.has(key)) values.set(key, value);
  return values;
}
