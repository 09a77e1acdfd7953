import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LoggerService } from '@nestjs/common';
import {
  apiVersionOf,
  deprecatedApiWarning,
  type ProxyLookup,
  findDeprecatedApiVersion,
  removedApiMessage,
  type ApiObject,
  type KindDefinition,
  type Scheme,
} from '@svc/api';
import { failureStatus, isValidPathSegmentName, StatusError, StatusReasons, type Status, type UserInfo } from '@svc/machinery';
import { isTimedOutResponse } from '../filters/handler-chain';
import type { ServerLifecycle } from '../lifecycle/server-lifecycle';
import { longRunningLabelsOf, type MetricsService } from '../metrics/metrics.service';
import { readBody } from '../request/read-body';
import { isUpgrade, takeUpgrade } from '../request/upgrade';
import type { NodeAgentConnector } from '../nodeagent/node-agent-connector';
import { auditAnnotationsOf, requestContext, requestUrl, type RequestContext } from '../request/request-context';
import type { RequestInfo } from '../request/request-info';
import { watchTimeoutSeconds } from '../request/request-timeout';
import { decodeObjectBody } from './body-decoder';
import { jsonFormat, negotiateOutput, wantsPretty, type OutputFormat } from './negotiation';
import { parseDeleteOptions, parseIncludeObject, parseListQuery, parseWatchQuery, parseWriteOptions, type OptionsKind } from './query-options';
import type { ResourceRegistries } from './registries';
import type { ResourceRegistry, WriteTarget } from './registry';
import { APPLY_PATCH_MEDIA_TYPE } from './registry';
import type { ListOutcome, ResourceWatchEvent, WriteResult } from './registry-types';
import { mediaTypeOf } from './media-types';
import { warningsOfRefusal } from '../admission';
import { addWarnings, writeBody, writeEncoded, writeStatusBody } from './response-writer';
import { toStatusError } from './status-mapping';
import { withEmptyDetails } from '../status/status';
import { partialObjectMetadataListOf, partialObjectMetadataOf, tableOf } from './table-output';
import { streamWatch } from './watch-stream';
import { acceptWebSocket, streamWatchOverWebSocket } from './watch-websocket';
import { isWebSocketRequest } from '../auth/websocket-protocol-authenticator';
import { proxiedPathOf, serveProxy } from './resource-proxy';
import { listJsonBytes } from './encoded-json';
import { LargeBodyPool } from './large-body-pool';

export interface ResourceRouterOptions {
  scheme: Scheme;
  registries: ResourceRegistries;
  /** Whether a served kind is enabled (`--runtime-config`); all are when absent. */
  isEnabled?: (definition: KindDefinition) => boolean;
  metrics: MetricsService;
  lifecycle: ServerLifecycle;
  /** `--min-request-timeout`: the floor of a watch's randomized lifetime. */
  minRequestTimeoutSeconds: number;
  maxRequestBodyBytes: number;
  logger?: LoggerService;
  /** How connect subresources reach node agents; they answer 503 without it. */
  nodeAgents?: NodeAgentConnector;
}

/** What a resource path names, resolved against the scheme as it is now. */
interface Target {
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

const NOT_FOUND_MESSAGE = 'the server could not find the requested resource';

// Kubernetes' ProxyREST ConnectMethods.
const PROXY_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

/**
 * The one handler of every resource path (`/api/v1/...`, `/apis/<group>/<version>/...`) for every kind
 * of the scheme. Non-resource paths (`/api`, `/apis/<group>`, health, metrics) pass on to the next
 * handler. Every failure is answered as a Status in the negotiated encoding.
 */
export class ResourceRouter {
  /** Deprecation of each definition, worked out once (null: not deprecated). */
  private readonly deprecations = new WeakMap<KindDefinition, { warning: string; removedRelease?: string } | null>();
  private readonly largeBodies = new LargeBodyPool();

  constructor(private readonly options: ResourceRouterOptions) {}

  readonly handle = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void): void => {
    const context = requestContext(req);
    if (!context.info.isResourceRequest) {
      next();
      return;
    }
    const pretty = wantsPretty(requestUrl(req).searchParams.get('pretty'), req.headers['user-agent']);
    const fallback = jsonFormat(pretty);
    this.serve(req, res, context, fallback).catch((error: unknown) => this.fail(req, res, error, fallback));
  };

  private async serve(req: IncomingMessage, res: ServerResponse, context: RequestContext, fallback: OutputFormat): Promise<void> {
    let format = fallback;
    let target: Target | undefined;
    try {
      target = this.resolve(context);
      this.warnIfDeprecated(target, res);
      format = negotiateOutput(acceptOf(req), { verb: target.info.verb, protobuf: target.registry.builtIn }, fallback.pretty);
      await this.dispatch(req, res, target, format);
    } catch (error) {
      this.fail(req, res, error, format, target);
    }
  }

  private resolve(context: RequestContext): Target {
    const info = context.info;
    // A route matches a path exactly: `configmaps//c1` names neither the collection nor an object.
    if (!info.exact) {
      context.unmatched = true;
      throw notFound(NOT_FOUND_MESSAGE);
    }
    const def = this.options.scheme.byResource({ group: info.group, version: info.version, resource: info.resource });
    if (def === undefined || !def.served || (this.options.isEnabled !== undefined && !this.options.isEnabled(def))) {
      context.unmatched = true;
      const removed = this.options.scheme.removedVersion(info.group, info.version, info.resource);
      throw notFound(removed ? removedApiMessage(removed, info.resource) : NOT_FOUND_MESSAGE);
    }
    const name = info.parts[1] ?? '';
    const subresource = info.parts[2] ?? '';
    // Only a proxy names a path of its own after the subresource.
    if (info.parts.length > 3 && !(subresource === 'proxy' && def.strategy.proxy)) throw notFound(NOT_FOUND_MESSAGE);
    let namespace = '';
    if (def.namespaced) {
      namespace = info.namespacedPath ? info.namespace : '';
      if (namespace === '' && name !== '') throw notFound(NOT_FOUND_MESSAGE);
      if (namespace !== '' && isValidPathSegmentName(namespace).length > 0) throw notFound(NOT_FOUND_MESSAGE);
    } else if (info.namespacedPath) {
      // A cluster-scoped resource has no namespace in its path.
      throw notFound(NOT_FOUND_MESSAGE);
    }
    const shownNamespace = def.namespaced && info.namespacedPath ? info.requestedNamespace : undefined;
    return { info, def, registry: this.options.registries.forDefinition(def), namespace, name, subresource, shownNamespace };
  }

  private warnIfDeprecated(target: Target, res: ServerResponse): void {
    const { def, info } = target;
    let known = this.deprecations.get(def);
    if (known === undefined) {
      const deprecation = this.options.scheme.deprecation(def);
      const scheduled = findDeprecatedApiVersion(def.group, def.version, def.resource);
      known = deprecation?.deprecated
        ? {
            warning: deprecation.warning ?? (scheduled ? deprecatedApiWarning(scheduled, def.kind) : `${apiVersionOf(def)} ${def.kind} is deprecated`),
            removedRelease: deprecation.removedRelease,
          }
        : null;
      this.deprecations.set(def, known);
    }
    if (known === null) return;
    const deprecation = known;
    res.setHeader('Warning', [`299 - ${JSON.stringify(known.warning)}`]);
    this.options.metrics.markDeprecatedApiRequested({
      group: def.group,
      version: def.version,
      resource: def.resource,
      subresource: info.subresource,
      removedRelease: deprecation.removedRelease,
    });
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse, target: Target, format: OutputFormat): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const read = method === 'GET' || method === 'HEAD';
    const { def, name, subresource, namespace } = target;
    if (name === '') {
      if (def.namespaced && namespace === '' && !read) throw methodNotAllowed();
      if (read) return target.info.verb === 'watch' ? this.watch(req, res, target, format) : this.list(req, res, target, format);
      if (method === 'POST') return this.create(req, res, target, format);
      if (method === 'DELETE') return this.deleteCollection(req, res, target, format);
      throw methodNotAllowed();
    }
    if (target.info.verb === 'watch') {
      if (subresource !== '' || !read) throw methodNotAllowed();
      return this.watch(req, res, target, format);
    }
    switch (subresource) {
      case '':
        if (read) return this.get(req, res, target, format);
        if (method === 'PUT') return this.update(req, res, target, format, '');
        if (method === 'PATCH') return this.patch(req, res, target, format, '');
        if (method === 'DELETE') return this.delete(req, res, target, format);
        throw methodNotAllowed();
      case 'status':
        if (!def.subresources.status) throw notFound(NOT_FOUND_MESSAGE);
        if (read) return this.get(req, res, target, format);
        if (method === 'PUT') return this.update(req, res, target, format, 'status');
        if (method === 'PATCH') return this.patch(req, res, target, format, 'status');
        throw methodNotAllowed();
      case 'scale':
        if (!def.subresources.scale) throw notFound(NOT_FOUND_MESSAGE);
        if (read) return writeBody(res, 200, shownIn(target, await target.registry.getScale(namespace, name)), format);
        if (method === 'PUT') return this.updateScale(req, res, target, format);
        if (method === 'PATCH') return this.patchScale(req, res, target, format);
        throw methodNotAllowed();
      default: {
        if (subresource === 'proxy' && def.strategy.proxy) return this.proxy(req, res, target);
        if (def.strategy.connect?.[subresource] !== undefined) return this.connect(req, res, target);
        // A subresource of the kind's own: PUT of the object (a namespace's finalize), or POST of
        // another kind's body (a pod's binding).
        const extra = def.strategy.subresources?.[subresource];
        if (extra === undefined) throw notFound(NOT_FOUND_MESSAGE);
        if (method === 'PUT' && extra.updateOf) return this.update(req, res, target, format, subresource);
        if (method === 'POST' && extra.create) return this.createSubresource(req, res, target, format);
        throw methodNotAllowed();
      }
    }
  }

  // ---- reads ----

  private async get(req: IncomingMessage, res: ServerResponse, target: Target, format: OutputFormat): Promise<void> {
    const params = requestUrl(req).searchParams;
    const object = await target.registry.get(target.namespace, target.name, { resourceVersion: params.get('resourceVersion') ?? undefined });
    writeBody(res, 200, this.viewOfObject(target, shownIn(target, object), format, params), format);
  }

  private async list(req: IncomingMessage, res: ServerResponse, target: Target, format: OutputFormat): Promise<void> {
    const params = requestUrl(req).searchParams;
    const query = parseListQuery(params);
    const listed = await target.registry.list(target.namespace, query);
    const outcome = target.shownNamespace === undefined ? listed : { ...listed, items: listed.items.map((item) => shownIn(target, item)) };
    if (format.encoding === 'json' && format.view === undefined && !format.pretty && target.shownNamespace === undefined) {
      // The items' own bytes, shared with every other read and watch of them.
      const body = listJsonBytes(this.listHead(target, outcome), outcome.items, this.largeBodies.allocate);
      writeEncoded(res, 200, body, format);
      this.largeBodies.releaseAfter(res, body);
      return;
    }
    writeBody(res, 200, this.viewOfList(target, outcome, format, params), format);
  }

  private async watch(req: IncomingMessage, res: ServerResponse, target: Target, format: OutputFormat): Promise<void> {
    const params = requestUrl(req).searchParams;
    const query = parseWatchQuery(params, target.name);
    const includeObject = format.view?.as === 'Table' ? parseIncludeObject(params) : 'Metadata';
    const seconds = watchTimeoutSeconds(this.options.minRequestTimeoutSeconds, query.timeoutSeconds);
    const timeoutMs = seconds * 1000;
    const watch = await target.registry.watch(target.namespace, { ...query, deadline: Date.now() + timeoutMs });
    const labels = longRunningLabelsOf(target.info, req.headers['content-type']);
    const view = format.view;
    const shown =
      view === undefined
        ? target.shownNamespace === undefined
          ? undefined
          : (event: ResourceWatchEvent): unknown => (event.type === 'ERROR' || event.type === 'BOOKMARK' ? event.object : shownIn(target, event.object))
        : (event: ResourceWatchEvent): unknown => {
            if (event.type === 'ERROR' || event.type === 'BOOKMARK') return event.object;
            const object = shownIn(target, event.object);
            return view.as === 'Table' ? tableOf(target.def, [object], view.apiVersion, includeObject) : partialObjectMetadataOf(object, view.apiVersion);
          };
    this.options.metrics.watchOpened(labels);
    try {
      const streamOptions = { watch, format, timeoutMs, stopSignal: this.options.lifecycle.longRunningStopSignal, view: shown };
      const upgrade = isUpgrade(req) && isWebSocketRequest(req) ? takeUpgrade(req) : undefined;
      if (upgrade) await streamWatchOverWebSocket(await acceptWebSocket(req, upgrade.socket, upgrade.head), streamOptions);
      else await streamWatch(res, streamOptions);
    } finally {
      this.options.metrics.watchClosed(labels);
    }
  }

  // ---- connections to node agents ----

  /** A connect subresource (a pod's log, exec, attach, portforward): proxied to the node agent of the object. */
  private async connect(req: IncomingMessage, res: ServerResponse, target: Target): Promise<void> {
    const connect = target.def.strategy.connect![target.subresource];
    const method = (req.method ?? 'GET').toUpperCase();
    if (!connect.methods.includes(method)) throw methodNotAllowed();
    const nodeAgents = this.options.nodeAgents;
    if (!nodeAgents) throw new StatusError(failureStatus(503, StatusReasons.ServiceUnavailable, 'this server has no connection to node agents', {}));
    const object = await target.registry.get(target.namespace, target.name, {});
    const location = connect.location(object, requestUrl(req).searchParams);
    if (isUpgrade(req)) {
      // Resolve the node first, so that a failure is still answered as a Status.
      await nodeAgents.target(location.nodeName);
      const upgrade = takeUpgrade(req);
      if (upgrade) return nodeAgents.upgrade(location, req, upgrade.socket, upgrade.head);
    }
    if (target.subresource !== 'log') throw new StatusError(failureStatus(400, StatusReasons.BadRequest, 'Upgrade request required', {}));
    await nodeAgents.stream(location, req, res);
  }

  /** `<resource>/<name>[:<port>]/proxy/<path>`: to the object's own address, or its node agent (Kubernetes' ProxyREST). */
  private async proxy(req: IncomingMessage, res: ServerResponse, target: Target): Promise<void> {
    const proxy = target.def.strategy.proxy!;
    const method = (req.method ?? 'GET').toUpperCase();
    if (!PROXY_METHODS.has(method)) throw methodNotAllowed();
    const name = proxy.nameOf(target.name);
    if (name === undefined)
      throw new StatusError(
        failureStatus(400, StatusReasons.BadRequest, `invalid ${target.def.kind.toLowerCase()} request ${JSON.stringify(target.name)}`, {}),
      );
    const path = proxiedPathOf(requestUrl(req).pathname, target.def.resource, target.name);
    const object = await target.registry.get(target.namespace, name, {});
    const lookup: ProxyLookup = async (resource, namespace, objectName) => {
      const registry = this.options.registries.forResource('', 'v1', resource);
      if (registry === undefined) throw notFound(NOT_FOUND_MESSAGE);
      return registry.get(namespace, objectName, {});
    };
    const location = await proxy.location(object, target.name, lookup);
    await serveProxy(req, res, { target: location, path, nodeAgents: this.options.nodeAgents });
  }

  // ---- writes ----

  private async create(req: IncomingMessage, res: ServerResponse, target: Target, format: OutputFormat): Promise<void> {
    const options = this.writeOptions(req, 'CreateOptions');
    const input = await decodeObjectBody(await readBody(req, this.options.maxRequestBodyBytes), req.headers['content-type']);
    const result = await target.registry.create(target.namespace, input, options);
    this.written(res, target, result, format, 201);
  }

  private async createSubresource(req: IncomingMessage, res: ServerResponse, target: Target, format: OutputFormat): Promise<void> {
    const options = this.writeOptions(req, 'CreateOptions');
    const input = await decodeObjectBody(await readBody(req, this.options.maxRequestBodyBytes), req.headers['content-type']);
    const peers = (group: string, version: string, resource: string) => this.options.registries.forResource(group, version, resource);
    const result = await target.registry.createSubresource(target.namespace, target.name, target.subresource, input, options, peers);
    // Kubernetes answers such a create with a Success Status, not the object it changed.
    const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
    writeBody(res, 201, status, format, result.warnings);
  }

  private async update(req: IncomingMessage, res: ServerResponse, target: Target, format: OutputFormat, subresource: WriteTarget): Promise<void> {
    const options = this.writeOptions(req, 'UpdateOptions');
    const input = await decodeObjectBody(await readBody(req, this.options.maxRequestBodyBytes), req.headers['content-type']);
    const result = await target.registry.update(target.namespace, target.name, input, options, subresource);
    this.written(res, target, result, format, result.created ? 201 : 200);
  }

  private async patch(req: IncomingMessage, res: ServerResponse, target: Target, format: OutputFormat, subresource: WriteTarget): Promise<void> {
    const contentType = req.headers['content-type'];
    const apply = mediaTypeOf(contentType ?? '') === APPLY_PATCH_MEDIA_TYPE;
    const options = this.writeOptions(req, 'PatchOptions', apply);
    const body = await readBody(req, this.options.maxRequestBodyBytes);
    const result = await target.registry.patch(target.namespace, target.name, contentType, body, options, subresource);
    this.written(res, target, result, format, result.created ? 201 : 200);
  }

  private async updateScale(req: IncomingMessage, res: ServerResponse, target: Target, format: OutputFormat): Promise<void> {
    const options = this.writeOptions(req, 'UpdateOptions');
    const input = await decodeObjectBody(await readBody(req, this.options.maxRequestBodyBytes), req.headers['content-type']);
    const { scale, warnings } = await target.registry.updateScale(target.namespace, target.name, input, options);
    writeBody(res, 200, shownIn(target, scale), format, warnings);
  }

  private async patchScale(req: IncomingMessage, res: ServerResponse, target: Target, format: OutputFormat): Promise<void> {
    const contentType = req.headers['content-type'];
    const options = this.writeOptions(req, 'PatchOptions', mediaTypeOf(contentType ?? '') === APPLY_PATCH_MEDIA_TYPE);
    const body = await readBody(req, this.options.maxRequestBodyBytes);
    const { scale, warnings } = await target.registry.patchScale(target.namespace, target.name, contentType, body, options);
    writeBody(res, 200, shownIn(target, scale), format, warnings);
  }

  private async delete(req: IncomingMessage, res: ServerResponse, target: Target, format: OutputFormat): Promise<void> {
    const { request, dryRun } = await this.deleteOptions(req);
    const result = await target.registry.delete(target.namespace, target.name, request, { dryRun, ...this.caller(req) });
    const code = !result.removed && request.orphanDependents === false ? 202 : 200;
    // Kubernetes' ReturnDeletedObject: some kinds answer with the removed object, the others with a Success Status.
    if (!result.removed || target.def.strategy.returnDeletedObject === true) {
      writeBody(res, code, shownIn(target, result.object), format);
      return;
    }
    const status: Status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: target.name, group: target.def.group || undefined, kind: target.def.resource, uid: result.object.metadata?.uid },
    };
    writeBody(res, code, status, format);
  }

  private async deleteCollection(req: IncomingMessage, res: ServerResponse, target: Target, format: OutputFormat): Promise<void> {
    const params = requestUrl(req).searchParams;
    const query = parseListQuery(params);
    const { request, dryRun } = await this.deleteOptions(req);
    const items = await target.registry.deleteCollection(target.namespace, query, request, { dryRun, ...this.caller(req) });
    writeBody(
      res,
      200,
      { kind: target.def.listKind, apiVersion: apiVersionOf(target.def), metadata: {}, items: items.map((item) => shownIn(target, item)) },
      format,
    );
  }

  private async deleteOptions(req: IncomingMessage) {
    const body = await readBody(req, this.options.maxRequestBodyBytes);
    const decoded = body.length > 0 && body.toString('utf8').trim() !== '' ? (await decodeObjectBody(body, req.headers['content-type'])).value : undefined;
    return parseDeleteOptions(decoded, requestUrl(req).searchParams);
  }

  private writeOptions(req: IncomingMessage, kind: OptionsKind, apply = false) {
    return { ...parseWriteOptions(requestUrl(req).searchParams, req.headers['user-agent'], kind, apply), ...this.caller(req) };
  }

  /** Who writes, for admission, and where admission's audit annotations go. */
  private caller(req: IncomingMessage): { user: UserInfo | undefined; auditAnnotations: Record<string, string> | undefined } {
    const context = requestContext(req);
    return { user: context.user, auditAnnotations: auditAnnotationsOf(context) };
  }

  private written(res: ServerResponse, target: Target, result: WriteResult, format: OutputFormat, code: number): void {
    writeBody(res, code, shownIn(target, result.object), format, result.warnings);
  }

  // ---- views ----

  private viewOfObject(target: Target, object: ApiObject, format: OutputFormat, params: URLSearchParams): unknown {
    const view = format.view;
    if (view === undefined) return object;
    if (view.as === 'Table') {
      return tableOf(target.def, [object], view.apiVersion, parseIncludeObject(params), { resourceVersion: object.metadata?.resourceVersion });
    }
    return partialObjectMetadataOf(object, view.apiVersion);
  }

  private listHead(target: Target, outcome: ListOutcome) {
    // The interface promises `continue` on every list, empty on the last chunk.
    const meta: { resourceVersion: string; continue: string; remainingItemCount?: number } = {
      resourceVersion: outcome.resourceVersion,
      continue: outcome.continue ?? '',
    };
    if (outcome.remainingItemCount !== undefined) meta.remainingItemCount = outcome.remainingItemCount;
    return { kind: target.def.listKind, apiVersion: apiVersionOf(target.def), metadata: meta };
  }

  private viewOfList(target: Target, outcome: ListOutcome, format: OutputFormat, params: URLSearchParams): unknown {
    const { metadata: meta } = this.listHead(target, outcome);
    const view = format.view;
    if (view?.as === 'Table') return tableOf(target.def, outcome.items, view.apiVersion, parseIncludeObject(params), meta);
    if (view !== undefined) return partialObjectMetadataListOf(outcome.items, view.apiVersion, meta);
    return { kind: target.def.listKind, apiVersion: apiVersionOf(target.def), metadata: meta, items: outcome.items };
  }

  // ---- errors ----

  private fail(req: IncomingMessage, res: ServerResponse, error: unknown, format: OutputFormat, target?: Target): void {
    if (isTimedOutResponse(res)) return;
    const resource = target ? { group: target.def.group, resource: target.def.resource } : { group: '', resource: '' };
    const status = toStatusError(error, resource, target?.name ?? '').status;
    if ((status.code ?? 500) >= 500) {
      const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
      this.options.logger?.error(`${req.method} ${req.url}: ${detail}`);
    }
    addWarnings(res, warningsOfRefusal(error));
    writeStatusBody(res, status, format);
  }
}

/** The object as a request through a system namespace's Kubernetes name sees it: in that namespace (a copy; stored objects are shared). */
function shownIn<T extends { metadata?: { namespace?: string } }>(target: Target, object: T): T {
  const shown = target.shownNamespace;
  if (shown === undefined || object.metadata?.namespace !== target.namespace) return object;
  return { ...object, metadata: { ...object.metadata, namespace: shown } };
}

// Kubernetes' generic answers carry an empty `details`; kubectl reads it without a nil check (debug panicked on a 404 without).
/**
 * The media types a request accepts. A browser cannot set headers on a WebSocket, so a WebSocket
 * handshake without an `Accept` header may name them in the `accept` query parameter instead (a
 * watch of Tables for the console); every other request is negotiated from its header alone.
 */
function acceptOf(req: IncomingMessage): string | undefined {
  if (req.headers.accept !== undefined || !isUpgrade(req) || !isWebSocketRequest(req)) return req.headers.accept;
  return requestUrl(req).searchParams.get('accept') ?? undefined;
}

function notFound(message: string): StatusError {
  return new StatusError(withEmptyDetails(failureStatus(404, StatusReasons.NotFound, message)));
}

function methodNotAllowed(): StatusError {
  return new StatusError(
    withEmptyDetails(failureStatus(405, StatusReasons.MethodNotAllowed, 'the server does not allow this method on the requested resource')),
  );
}
