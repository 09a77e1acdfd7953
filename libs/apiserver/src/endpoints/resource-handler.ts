import type { IncomingMessage } from 'node:http';
import type { RequestInfo } from '../request/request-info';
import type { LoggerService } from '@nestjs/common';
import { warningsOfRefusal } from '../admission';
import { requestContext, requestUrl } from '../request/request-context';
import { acceptOf } from '../request/upgrade';
import type { ResponseWriter } from '../serving/response-writer';
import { toStatusError } from '../registry/generic/status-mapping';
import { DeprecationWarnings } from './deprecation';
import { serveConnect } from './handlers/connect';
import { serveCreate, serveCreateBinding, serveCreateSubresource } from './handlers/create';
import { serveDelete } from './handlers/delete';
import { serveDeleteCollection } from './handlers/delete-collection';
import { serveGet, serveGetScale } from './handlers/get';
import { serveList } from './handlers/list';
import { servePatch, servePatchScale } from './handlers/patch';
import { serveProxySubresource } from './handlers/proxy';
import { serveUpdate, serveUpdateScale } from './handlers/update';
import { serveWatch } from './handlers/watch';
import {
  methodNotAllowed,
  NOT_FOUND_MESSAGE,
  notFound,
  resolveScope,
  type ResourceHandlerDependencies,
  type ResourceRequest,
  type RequestScope,
} from './request-scope';
import { jsonFormat, negotiateOutput, wantsPretty, type OutputFormat } from './responses/negotiation';
import { writeStatusBody } from './responses/write-body';
import type { RestEndpoints } from './rest-endpoints';

export interface ResourceHandlerOptions extends ResourceHandlerDependencies {
  logger?: LoggerService;
  /** The resources served by a REST of their own (the reviews, TokenRequest, component statuses). */
  restEndpoints?: RestEndpoints;
}

type Verb = (request: ResourceRequest) => Promise<void>;

/** The verbs of a collection path, by method. */
const COLLECTION: Record<string, Verb> = { GET: serveList, HEAD: serveList, POST: serveCreate, DELETE: serveDeleteCollection };
/** The verbs of an object path, by method. */
const OBJECT: Record<string, Verb> = {
  GET: serveGet,
  HEAD: serveGet,
  PUT: (r) => serveUpdate(r, ''),
  PATCH: (r) => servePatch(r, ''),
  DELETE: serveDelete,
};
const STATUS: Record<string, Verb> = { GET: serveGet, HEAD: serveGet, PUT: (r) => serveUpdate(r, 'status'), PATCH: (r) => servePatch(r, 'status') };
const SCALE: Record<string, Verb> = { GET: serveGetScale, HEAD: serveGetScale, PUT: serveUpdateScale, PATCH: servePatchScale };

/**
 * Every resource path (`/api/v1/...`, `/apis/<group>/<version>/...`) for every kind of the scheme:
 * the path resolved to a kind, namespace, name and subresource, the answer's format negotiated, then
 * the verb's handler (endpoints/handlers) by method and subresource. The resources served by a REST of
 * their own come first. Every failure is answered as a Status in the negotiated encoding.
 */
export class ResourceHandler {
  private readonly deprecations: DeprecationWarnings;

  constructor(private readonly options: ResourceHandlerOptions) {
    this.deprecations = new DeprecationWarnings(options.scheme, options.metrics);
  }

  /** Serves one resource request; never throws. */
  async serve(req: IncomingMessage, res: ResponseWriter): Promise<void> {
    const context = requestContext(req);
    const params = requestUrl(req).searchParams;
    let format = jsonFormat(wantsPretty(params.get('pretty'), req.headers['user-agent']));
    let scope: RequestScope | undefined;
    try {
      if (await this.options.restEndpoints?.serve(req, res, context)) return;
      const bindings = isBindingsPath(context.info);
      scope = resolveScope(bindings ? { ...context, info: { ...context.info, resource: 'pods' } } : context, this.options);
      this.deprecations.warn(scope, res);
      format = negotiateOutput(acceptOf(req, params), { verb: scope.info.verb, protobuf: scope.registry.builtIn }, format.pretty);
      const verb = bindings ? bindingsVerb(scope, req.method ?? 'GET') : verbOf(scope, req.method ?? 'GET');
      await verb({ req, res, scope, format, params, deps: this.options });
    } catch (error) {
      this.fail(req, res, error, format, scope);
    }
  }

  private fail(req: IncomingMessage, res: ResponseWriter, error: unknown, format: OutputFormat, scope?: RequestScope): void {
    if (res.timedOut) return;
    const resource = scope ? { group: scope.def.group, resource: scope.def.resource } : { group: '', resource: '' };
    const status = toStatusError(error, resource, scope?.name ?? '').status;
    if ((status.code ?? 500) >= 500) {
      const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
      this.options.logger?.error(`${req.method} ${req.url}: ${detail}`);
    }
    res.addWarnings(warningsOfRefusal(error));
    writeStatusBody(res, status, format);
  }
}

/** `/api/v1/namespaces/<ns>/bindings`: Kubernetes' older binding path, resolved against pods. */
function isBindingsPath(info: RequestInfo): boolean {
  return info.isResourceRequest && info.apiPrefix === 'api' && info.group === '' && info.version === 'v1' && info.resource === 'bindings';
}

/** `bindings` takes only a create in a namespace. */
function bindingsVerb(scope: RequestScope, method: string): Verb {
  if (scope.name !== '' || scope.namespace === '') throw notFound(NOT_FOUND_MESSAGE);
  if (method.toUpperCase() !== 'POST') throw methodNotAllowed();
  return serveCreateBinding;
}

/** The handler of a request by its method and what its path names; 404 or 405 when there is none. */
function verbOf(scope: RequestScope, rawMethod: string): Verb {
  const method = rawMethod.toUpperCase();
  const read = method === 'GET' || method === 'HEAD';
  const { def, name, subresource, namespace } = scope;
  if (name === '') {
    if (def.namespaced && namespace === '' && !read) throw methodNotAllowed();
    if (read && scope.info.verb === 'watch') return serveWatch;
    return COLLECTION[method] ?? methodNotAllowedVerb;
  }
  if (scope.info.verb === 'watch') {
    if (subresource !== '' || !read) throw methodNotAllowed();
    return serveWatch;
  }
  switch (subresource) {
    case '':
      return OBJECT[method] ?? methodNotAllowedVerb;
    case 'status':
      if (!def.subresources.status) throw notFound(NOT_FOUND_MESSAGE);
      return STATUS[method] ?? methodNotAllowedVerb;
    case 'scale':
      if (!def.subresources.scale) throw notFound(NOT_FOUND_MESSAGE);
      return SCALE[method] ?? methodNotAllowedVerb;
    default:
      return subresourceVerb(scope, method);
  }
}

/** A subresource of the kind's own: a proxy, a connection to a node agent, a PUT of the object (a namespace's finalize), or a POST of another kind's body (a pod's binding). */
function subresourceVerb(scope: RequestScope, method: string): Verb {
  const { def, subresource } = scope;
  if (subresource === 'proxy' && def.strategy.proxy) return serveProxySubresource;
  if (def.strategy.connect?.[subresource] !== undefined) return serveConnect;
  const extra = def.strategy.subresources?.[subresource];
  if (extra === undefined) throw notFound(NOT_FOUND_MESSAGE);
  if (extra.readable && (method === 'GET' || method === 'HEAD')) return serveGet;
  if (method === 'PUT' && extra.updateOf) return (r) => serveUpdate(r, subresource);
  if (method === 'PATCH' && extra.readable && extra.updateOf) return (r) => servePatch(r, subresource);
  if (method === 'POST' && extra.create) return serveCreateSubresource;
  throw methodNotAllowed();
}

function methodNotAllowedVerb(): Promise<void> {
  return Promise.reject(methodNotAllowed());
}
