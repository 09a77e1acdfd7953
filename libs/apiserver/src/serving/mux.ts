import type { IncomingMessage } from 'node:http';
import { requestContext, requestUrl } from '../request/request-context';
import { badRequestStatus, notFoundStatus, StatusError } from '../status/status';
import type { ResponseWriter } from './response-writer';

/** The named segments a pattern matched (`{group}`), and the rest a `{path...}` segment took, joined by `/`. */
export type RouteParams = Readonly<Record<string, string>>;

/** Serves one request of a route; a failure it throws is answered as a Status by the mux's owner. */
export type RouteHandler = (req: IncomingMessage, res: ResponseWriter, params: RouteParams) => void | Promise<void>;

/** One route: a path pattern, the methods it serves (GET serves HEAD too), and its handler. */
export interface MuxRoute {
  /** `/version`, `/apis/{group}/{version}`, `/debug/pprof/{profile...}`. */
  path: string;
  /** The methods served; every method when absent. Another method is a 404, as no route matched. */
  methods?: readonly string[];
  /**
   * Served to anyone: the filters from authentication on (audit, impersonation, in-flight caps,
   * authorization, body size) are not run for it. Only for what holds no data and must reach a client
   * that cannot sign in yet (the console's files).
   */
  toAnyone?: boolean;
  /**
   * Whether the route takes a request its pattern matched (an aggregated group version is proxied only
   * while an APIService names it); when false, matching goes on with the routes after it.
   */
  when?: (params: RouteParams) => boolean;
  handler: RouteHandler;
}

interface Segment {
  literal?: string;
  param?: string;
  /** `{name...}`: the rest of the path, not empty (its own segments are the route's business), the pattern's last. */
  rest?: boolean;
}

interface Compiled {
  route: MuxRoute;
  segments: Segment[];
  methods: ReadonlySet<string> | undefined;
}

/**
 * The one place a request finds what serves it (Kubernetes' PathRecorderMux and its API groups'
 * routes, together): every path the server answers is a route here, and a path no route names is a
 * 404 Status. A route matches a path exactly: each pattern segment names one non-empty segment of the
 * path, so `//` or a trailing `/` never reach a route they were not written for; only a `{rest...}`
 * segment takes what follows as it is (a resource path, whose exactness its handler judges, and a
 * proxied path beyond it).
 */
export class Mux {
  private readonly compiled: Compiled[] = [];
  private readonly exact = new Map<string, Compiled[]>();
  /** The routes served to anyone, apart: every request asks about them before authentication. */
  private readonly toAnyone: Compiled[] = [];

  handle(route: MuxRoute): void {
    const segments = parsePattern(route.path);
    const methods = route.methods === undefined ? undefined : new Set(route.methods.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m])));
    const compiled = { route, segments, methods };
    this.compiled.push(compiled);
    if (route.toAnyone === true) this.toAnyone.push(compiled);
    if (segments.every((s) => s.literal !== undefined)) {
      const known = this.exact.get(route.path) ?? [];
      this.exact.set(route.path, [...known, compiled]);
    }
  }

  /** Every route's pattern, in the order they were added. */
  patterns(): string[] {
    return this.compiled.map((c) => c.route.path);
  }

  /** The route and its parameters for a method and path, if one matches. */
  match(method: string, path: string): { route: MuxRoute; params: RouteParams } | undefined {
    const upper = method.toUpperCase();
    for (const candidate of this.exact.get(path) ?? []) {
      if (candidate.methods === undefined || candidate.methods.has(upper)) return { route: candidate.route, params: {} };
    }
    const parts = path.split('/').slice(1);
    for (const candidate of this.compiled) {
      if (candidate.methods !== undefined && !candidate.methods.has(upper)) continue;
      const params = matchSegments(candidate.segments, parts);
      if (params !== undefined && (candidate.route.when === undefined || candidate.route.when(params))) return { route: candidate.route, params };
    }
    return undefined;
  }

  /** True when the route a request would reach is served to anyone (`toAnyone`). */
  servesToAnyone(req: IncomingMessage): boolean {
    if (this.toAnyone.length === 0) return false;
    const method = (req.method ?? 'GET').toUpperCase();
    const path = requestUrl(req).pathname;
    const parts = path.split('/').slice(1);
    const candidate = this.toAnyone.find((c) => (c.methods === undefined || c.methods.has(method)) && matchSegments(c.segments, parts) !== undefined);
    // The route the mux itself would choose decides: one added earlier for the same path wins there.
    return candidate !== undefined && this.match(method, path)?.route === candidate.route;
  }

  /** Serves a request by its route; one no route names is answered 404 and not counted by path in metrics. */
  async serve(req: IncomingMessage, res: ResponseWriter): Promise<void> {
    const found = this.match(req.method ?? 'GET', requestUrl(req).pathname);
    if (found === undefined) {
      requestContext(req).unmatched = true;
      res.status(notFoundStatus());
      return;
    }
    await found.route.handler(req, res, found.params);
  }
}

function parsePattern(path: string): Segment[] {
  if (!path.startsWith('/')) throw new Error(`route ${path} does not start with /`);
  const parts = path.split('/').slice(1);
  return parts.map((part, index) => {
    const param = /^\{([a-zA-Z]+)(\.\.\.)?\}$/.exec(part);
    if (param === null) return { literal: part };
    if (param[2] !== undefined && index !== parts.length - 1) throw new Error(`route ${path}: ${part} must be its last segment`);
    return { param: param[1], rest: param[2] !== undefined };
  });
}

function matchSegments(segments: readonly Segment[], parts: readonly string[]): RouteParams | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    if (segment.rest) {
      const rest = parts.slice(i).join('/');
      if (rest === '') return undefined;
      params[segment.param!] = rest;
      return params;
    }
    const part = parts[i];
    if (part === undefined) return undefined;
    if (segment.literal !== undefined) {
      if (part !== segment.literal) return undefined;
    } else {
      if (part === '') return undefined;
      params[segment.param!] = part;
    }
  }
  return parts.length === segments.length ? params : undefined;
}

/** A path parameter with its percent-escapes decoded; a malformed escape is a 400, as a router answers it. */
export function decodeParam(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new StatusError(badRequestStatus(`Failed to decode param '${value}'`));
  }
}
