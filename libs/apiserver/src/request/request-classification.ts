import type { RequestInfo } from './request-info';

// Kubernetes' BasicLongRunningRequestCheck with the verbs and subresources the API server passes it.
const LONG_RUNNING_VERBS = new Set(['watch', 'proxy']);
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);
const READ_ONLY_VERBS = new Set(['get', 'list', 'watch']);

/** Watches and streaming subresources: exempt from the request timeout and the in-flight caps, not drained on shutdown. */
export function isLongRunning(info: RequestInfo): boolean {
  if (LONG_RUNNING_VERBS.has(info.verb)) return true;
  return info.isResourceRequest && LONG_RUNNING_SUBRESOURCES.has(info.subresource);
}

/** Counted against `--max-mutating-requests-inflight` rather than `--max-requests-inflight`. */
export function isMutating(info: RequestInfo): boolean {
  return !READ_ONLY_VERBS.has(info.verb);
}

// Subresources served by a connecter, which Kubernetes reports as CONNECT whatever the method.
const CONNECT_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'portforward']);

const KNOWN_METHODS = new Set(['get', 'head', 'post', 'put', 'patch', 'delete', 'options', 'connect', 'trace']);

const METRIC_VERB: Record<string, string> = {
  get: 'GET',
  list: 'LIST',
  watch: 'WATCH',
  create: 'POST',
  update: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
  deletecollection: 'DELETECOLLECTION',
  proxy: 'PROXY',
};

/**
 * The `verb` label of the request metrics: Kubernetes reports REST verbs upper-case, apply as APPLY,
 * streaming subresources as CONNECT, and the HTTP method for non-resource paths.
 */
export function metricVerb(info: RequestInfo, contentType?: string): string {
  if (!info.isResourceRequest) return KNOWN_METHODS.has(info.verb) ? info.verb.toUpperCase() : 'other';
  if (info.verb === 'patch' && contentType?.split(';')[0].trim() === 'application/apply-patch+yaml') return 'APPLY';
  if (CONNECT_SUBRESOURCES.has(info.subresource)) return 'CONNECT';
  return METRIC_VERB[info.verb] ?? 'other';
}

/** The `scope` label: Kubernetes' CleanScope. */
export function metricScope(info: RequestInfo): string {
  if (info.name !== '' || info.verb === 'create') return 'resource';
  if (info.namespace !== '') return 'namespace';
  if (info.isResourceRequest) return 'cluster';
  return '';
}
