import type { IncomingMessage } from 'node:http';
import { removedApiMessage, type KindDefinition, type Scheme } from '@svc/api';
import { failureStatus, isValidPathSegmentName, StatusError, StatusReasons, type UserInfo } from '@svc/machinery';
import type { MetricsService } from '../metrics/metrics.service';
import type { ServerLifecycle } from '../lifecycle/server-lifecycle';
import type { NodeAgentConnector } from '../nodeagent/node-agent-connector';
import type { ResourceRegistries } from '../registry/registries';
import type { ResourceRegistry } from '../registry/resource-registry';
import type { WriteOptions } from '../registry/types';
import { readBody } from '../request/read-body';
import { auditAnnotationsOf, requestContext, type RequestContext } from '../request/request-context';
import type { RequestInfo } from '../request/request-info';
import type { ResponseWriter } from '../serving/response-writer';
import { withEmptyDetails } from '../status/status';
import { decodeObjectBody } from '../decoding/body-decoder';
import type { ObjectInput } from '../registry/types';
import type { LargeBodyPool } from './responses/large-body-pool';
import type { OutputFormat } from './responses/negotiation';
import { parseWriteOptions, type OptionsKind } from './query-options';

/** What a resource path names, resolved against the scheme as it is now (Kubernetes' RequestScope). */
export interface RequestScope {
  info: RequestInfo;
  def: KindDefinition;
  registry: ResourceRegistry;
  /** Empty for cluster-scoped kinds and for lists across all namespaces. */
  namespace: string;
  /** The object name from the path (not from a field selector). */
  name: string;
  subresource: string;
  /**
   * The Kubernetes name of a system namespace the path used (`kube-system`): objects of `namespace`
   * are answered under it, as kubectl and client-go expect what they read from a namespace to say it.
   */
  shownNamespace?: string;
}

/** What every resource handler may use besides the request. */
export interface ResourceHandlerDependencies {
  scheme: Scheme;
  registries: ResourceRegistries;
  /** Whether a served kind is enabled (`--runtime-config`); all are when absent. */
  isEnabled?: (definition: KindDefinition) => boolean;
  metrics: MetricsService;
  lifecycle: ServerLifecycle;
  /** `--min-request-timeout`: the floor of a watch's randomized lifetime. */
  minRequestTimeoutSeconds: number;
  maxRequestBodyBytes: number;
  /** How connect subresources reach node agents; they answer 503 without it. */
  nodeAgents?: NodeAgentConnector;
  /** Memory for large list bodies. */
  largeBodies: LargeBodyPool;
}

/** One resource request as a verb handler takes it: the request, its answer, what it names and the negotiated format. */
export interface ResourceRequest {
  req: IncomingMessage;
  res: ResponseWriter;
  scope: RequestScope;
  format: OutputFormat;
  params: URLSearchParams;
  deps: ResourceHandlerDependencies;
}

export const NOT_FOUND_MESSAGE = 'the server could not find the requested resource';

/**
 * The kind, namespace, name and subresource of a resource path. A route matches a path exactly
 * (`configmaps//c1` names neither the collection nor an object); a kind that is not served, or is
 * turned off, answers 404 (naming the release that removed a version Kubernetes no longer serves).
 */
export function resolveScope(context: RequestContext, deps: ResourceHandlerDependencies): RequestScope {
  const info = context.info;
  if (!info.exact) {
    context.unmatched = true;
    throw notFound(NOT_FOUND_MESSAGE);
  }
  const def = deps.scheme.byResource({ group: info.group, version: info.version, resource: info.resource });
  if (def === undefined || !def.served || (deps.isEnabled !== undefined && !deps.isEnabled(def))) {
    context.unmatched = true;
    const removed = deps.scheme.removedVersion(info.group, info.version, info.resource);
    throw notFound(removed ? removedApiMessage(removed, info.resource) : NOT_FOUND_MESSAGE);
  }
  const name = info.parts[1] ?? '';
  const subresource = info.parts[2] ?? '';
  // Only a proxy names a path of its own after the subresource.
  if (info.parts.length > 3 && !(subresource === 'proxy' && def.strategy.proxy)) throw notFound(NOT_FOUND_MESSAGE);
  const namespace = scopeNamespace(def, info, name);
  const shownNamespace = def.namespaced && info.namespacedPath ? info.requestedNamespace : undefined;
  return { info, def, registry: deps.registries.forDefinition(def), namespace, name, subresource, shownNamespace };
}

/** The namespace of a namespaced kind's path (none for a list across all namespaces); a cluster-scoped kind has none in its path. */
function scopeNamespace(def: KindDefinition, info: RequestInfo, name: string): string {
  if (!def.namespaced) {
    if (info.namespacedPath) throw notFound(NOT_FOUND_MESSAGE);
    return '';
  }
  const namespace = info.namespacedPath ? info.namespace : '';
  if (namespace === '' && name !== '') throw notFound(NOT_FOUND_MESSAGE);
  if (namespace !== '' && isValidPathSegmentName(namespace).length > 0) throw notFound(NOT_FOUND_MESSAGE);
  return namespace;
}

/** The object as a request through a system namespace's Kubernetes name sees it: in that namespace (a copy; stored objects are shared). */
export function shownIn<T extends { metadata?: { namespace?: string } }>(scope: RequestScope, object: T): T {
  const shown = scope.shownNamespace;
  if (shown === undefined || object.metadata?.namespace !== scope.namespace) return object;
  return { ...object, metadata: { ...object.metadata, namespace: shown } };
}

/** The request body decoded as an object (JSON, YAML or protobuf), bounded by the body limit. */
export async function objectInputOf(request: ResourceRequest): Promise<ObjectInput> {
  return decodeObjectBody(await readBody(request.req, request.deps.maxRequestBodyBytes), request.req.headers['content-type']);
}

/** The write options of the query, and the caller. */
export function writeOptionsOf(request: ResourceRequest, kind: OptionsKind, apply = false): WriteOptions & { force?: boolean } {
  return { ...parseWriteOptions(request.params, request.req.headers['user-agent'], kind, apply), ...callerOf(request.req) };
}

/** Who writes, for admission, and where admission's audit annotations go. */
export function callerOf(req: IncomingMessage): { user: UserInfo | undefined; auditAnnotations: Record<string, string> | undefined } {
  const context = requestContext(req);
  return { user: context.user, auditAnnotations: auditAnnotationsOf(context) };
}

// Kubernetes' generic answers carry an empty `details`; kubectl reads it without a nil check (debug panicked on a 404 without).
export function notFound(message: string): StatusError {
  return new StatusError(withEmptyDetails(failureStatus(404, StatusReasons.NotFound, message)));
}

export function methodNotAllowed(): StatusError {
  return new StatusError(
    withEmptyDetails(failureStatus(405, StatusReasons.MethodNotAllowed, 'the server does not allow this method on the requested resource')),
  );
}
