import type { Ingress, IngressBackend } from '@svc/api';

/** A Service port an Ingress sends requests to, in the Ingress's namespace. */
export interface ServiceBackend {
  namespace: string;
  service: string;
  port: { name?: string; number?: number };
}

/** Where a request goes: a Service, or nothing this controller can serve (a resource backend). */
export type RouteTarget = { kind: 'service'; backend: ServiceBackend; ingress: string } | { kind: 'unsupported'; ingress: string; reason: string };

interface PathRule {
  /** Exact: the whole path; Prefix (and ImplementationSpecific): by path elements. */
  exact: boolean;
  /** The path without its trailing slashes for Prefix (`/` stays `/`). */
  path: string;
  target: RouteTarget;
  /** The rule's order among all (the oldest Ingress first), for ties. */
  order: number;
}

interface HostRules {
  paths: PathRule[];
  defaultBackend?: RouteTarget;
}

/** What a request matched: a target, or why none (404: no rule; the caller answers 503 for a target without endpoints). */
export type RouteMatch = { target: RouteTarget } | { target: undefined };

function targetOf(backend: IngressBackend, ingress: Ingress): RouteTarget {
  const namespace = ingress.metadata?.namespace ?? '';
  const id = `${namespace}/${ingress.metadata?.name ?? ''}`;
  if (backend.service === undefined) return { kind: 'unsupported', ingress: id, reason: 'resource backends are not served by this controller' };
  const port = backend.service.port ?? {};
  return {
    kind: 'service',
    ingress: id,
    backend: { namespace, service: backend.service.name, port: port.name ? { name: port.name } : { number: port.number } },
  };
}

/** The host a request names: its Host header without port, lower case, without a trailing dot. */
export function requestHost(header: string | undefined): string {
  if (!header) return '';
  let host = header.trim().toLowerCase();
  if (host.startsWith('[')) host = host.slice(0, host.indexOf(']') + 1);
  else if (host.includes(':')) host = host.slice(0, host.indexOf(':'));
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

/** Whether a Prefix rule's path matches a request path, element by element (`/foo` matches `/foo/bar`, not `/foobar`). */
function prefixMatches(rule: string, path: string): boolean {
  if (rule === '/') return true;
  return path === rule || path.startsWith(`${rule}/`) || path === `${rule}/`;
}

/**
 * The routes of a set of Ingresses, as Kubernetes' Ingress specification asks them to be matched: a
 * request's host picks the rules of that exact host, else of a wildcard host (`*.example.com` matching
 * one label more), else of the rules without a host; among their paths the longest match wins (Exact
 * before Prefix of the same length, then the oldest Ingress); with no path matched, a default backend.
 */
export class RouteTable {
  private readonly exact = new Map<string, HostRules>();
  private readonly wildcard = new Map<string, HostRules>();
  private readonly anyHost: HostRules = { paths: [] };
  private defaultBackend: RouteTarget | undefined;

  constructor(ingresses: readonly Ingress[]) {
    const sorted = [...ingresses].sort(
      (a, b) =>
        (Date.parse(a.metadata?.creationTimestamp ?? '') || 0) - (Date.parse(b.metadata?.creationTimestamp ?? '') || 0) ||
        `${a.metadata?.namespace}/${a.metadata?.name}`.localeCompare(`${b.metadata?.namespace}/${b.metadata?.name}`),
    );
    let order = 0;
    for (const ingress of sorted) {
      const spec = ingress.spec ?? {};
      if (spec.defaultBackend !== undefined) this.defaultBackend ??= targetOf(spec.defaultBackend, ingress);
      for (const rule of spec.rules ?? []) {
        const rules = this.rulesOf(rule.host ?? '');
        for (const path of rule.http?.paths ?? []) {
          const exact = path.pathType === 'Exact';
          const value = path.path || '/';
          rules.paths.push({ exact, path: exact ? value : value.replace(/\/+$/, '') || '/', target: targetOf(path.backend, ingress), order: order++ });
        }
      }
    }
    for (const rules of [...this.exact.values(), ...this.wildcard.values(), this.anyHost]) {
      rules.paths.sort((a, b) => b.path.length - a.path.length || Number(b.exact) - Number(a.exact) || a.order - b.order);
    }
  }

  private rulesOf(host: string): HostRules {
    if (host === '') return this.anyHost;
    const map = host.startsWith('*.') ? this.wildcard : this.exact;
    const key = host.startsWith('*.') ? host.slice(2) : host;
    let rules = map.get(key);
    if (rules === undefined) map.set(key, (rules = { paths: [] }));
    return rules;
  }

  /** The rules a host is served by: its own, a wildcard's, else those of no host. */
  private rulesFor(host: string): HostRules {
    const own = this.exact.get(host);
    if (own !== undefined) return own;
    const dot = host.indexOf('.');
    const wildcard = dot > 0 ? this.wildcard.get(host.slice(dot + 1)) : undefined;
    return wildcard ?? this.anyHost;
  }

  /** Where a request for `host` (see requestHost) and `path` (without its query) goes. */
  match(host: string, path: string): RouteMatch {
    const rules = this.rulesFor(host);
    for (const rule of rules.paths) {
      if (rule.exact ? path === rule.path : prefixMatches(rule.path, path)) return { target: rule.target };
    }
    return { target: this.defaultBackend };
  }
}
