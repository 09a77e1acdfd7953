import type { IncomingMessage, ServerResponse } from 'node:http';
import { canonicalQuantity } from '@svc/api';
import type { AccessAttributes, AccessDescriber } from '@svc/delegated-auth';
import { FieldQuery, LabelQuery, newNotFound, StatusError, type UserInfo } from '@svc/machinery';
import { formatGoDurationNanos } from '@svc/options';
import type { ResourceUsage } from '../storage/metrics-storage';

export const METRICS_GROUP = 'metrics.k8s.io';
export const METRICS_VERSION = 'v1beta1';
const GROUP_VERSION = `${METRICS_GROUP}/${METRICS_VERSION}`;
const PREFIX = `/apis/${GROUP_VERSION}`;

/** The objects the metrics are of: a node's or pod's name, namespace and labels. */
export interface MetaOnly {
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
}

/** What the API answers from: the nodes and pods known, and the usage stored for them. */
export interface MetricsSource {
  nodes(): MetaOnly[];
  node(name: string): MetaOnly | undefined;
  /** Every pod, or a namespace's. */
  pods(namespace?: string): MetaOnly[];
  pod(namespace: string, name: string): MetaOnly | undefined;
  nodeUsage(name: string): ResourceUsage | undefined;
  podUsage(namespace: string, name: string): { containers: Array<{ name: string; usage: ResourceUsage }>; timestamp: number; windowMs: number } | undefined;
}

/** What one request asks of the metrics API, from its path. */
type Route = { kind: 'discovery'; body: () => unknown } | { kind: 'resource'; resource: 'nodes' | 'pods'; namespace?: string; name?: string };

/** A time as metav1.Time writes it: RFC 3339 to the second. */
function metaTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** CPU as metrics-server writes it (nanocores, canonical) and memory in binary units (bytes, canonical). */
export function usageList(cpuNanoCores: number, memoryBytes: number): { cpu: string; memory: string } {
  const memory = memoryBytes !== 0 && memoryBytes % 1024 === 0 ? canonicalQuantity(`${memoryBytes / 1024}Ki`) : canonicalQuantity(`${memoryBytes}`);
  return { cpu: canonicalQuantity(`${cpuNanoCores}n`) ?? '0', memory: memory ?? '0' };
}

function windowText(ms: number): string {
  return formatGoDurationNanos(BigInt(Math.round(ms)) * 1_000_000n);
}

const RESOURCE_LIST = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: GROUP_VERSION,
  resources: [
    { name: 'nodes', singularName: '', namespaced: false, kind: 'NodeMetrics', verbs: ['get', 'list'] },
    { name: 'pods', singularName: '', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] },
  ],
};

const GROUP = {
  name: METRICS_GROUP,
  versions: [{ groupVersion: GROUP_VERSION, version: METRICS_VERSION }],
  preferredVersion: { groupVersion: GROUP_VERSION, version: METRICS_VERSION },
};

/** The route of a path of this API, or undefined (404). Segments are matched exactly; an empty one never matches. */
export function routeOf(path: string): Route | undefined {
  if (path === '/apis') return { kind: 'discovery', body: () => ({ kind: 'APIGroupList', apiVersion: 'v1', groups: [GROUP] }) };
  if (path === `/apis/${METRICS_GROUP}`) return { kind: 'discovery', body: () => ({ kind: 'APIGroup', apiVersion: 'v1', ...GROUP }) };
  if (path === PREFIX) return { kind: 'discovery', body: () => RESOURCE_LIST };
  if (!path.startsWith(`${PREFIX}/`)) return undefined;
  const parts = path.slice(PREFIX.length + 1).split('/');
  if (parts.some((p) => p === '')) return undefined;
  let decoded: string[];
  try {
    decoded = parts.map(decodeURIComponent);
  } catch {
    return undefined;
  }
  const [a, b, c, d] = decoded;
  if (decoded.length <= 2 && a === 'nodes') return { kind: 'resource', resource: 'nodes', name: b };
  if (decoded.length <= 2 && a === 'pods') return { kind: 'resource', resource: 'pods', name: b };
  if ((decoded.length === 3 || decoded.length === 4) && a === 'namespaces' && c === 'pods')
    return { kind: 'resource', resource: 'pods', namespace: b, name: d };
  return undefined;
}

/** How the metrics API's requests are authorized: resource attributes in `metrics.k8s.io`, Kubernetes' wording of a refusal. */
export const METRICS_ACCESS: AccessDescriber = {
  attributes: (req: IncomingMessage, path: string): AccessAttributes => {
    const route = routeOf(path);
    const method = (req.method ?? 'GET').toUpperCase();
    if (route?.kind !== 'resource') return { nonResourceAttributes: { path, verb: method.toLowerCase() } };
    const watch = new URL(req.url ?? '/', 'https://metrics').searchParams.get('watch');
    const verb = method !== 'GET' ? method.toLowerCase() : route.name !== undefined ? 'get' : watch === 'true' || watch === '1' ? 'watch' : 'list';
    return {
      resourceAttributes: { verb, group: METRICS_GROUP, resource: route.resource, namespace: route.namespace, name: route.name },
    };
  },
  forbidden: (user: UserInfo, attributes: AccessAttributes) => {
    if ('nonResourceAttributes' in attributes)
      return `forbidden: User "${user.name}" cannot ${attributes.nonResourceAttributes.verb} path "${attributes.nonResourceAttributes.path}"`;
    const r = attributes.resourceAttributes;
    const subject = r.name ? `${r.resource}.${METRICS_GROUP} "${r.name}"` : `${r.resource}.${METRICS_GROUP}`;
    const scope = r.namespace ? `in the namespace "${r.namespace}"` : 'at the cluster scope';
    return `${subject} is forbidden: User "${user.name}" cannot ${r.verb} resource "${r.resource}" in API group "${METRICS_GROUP}" ${scope}`;
  },
};

function status(code: number, reason: string, message: string, details?: object): unknown {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code };
}

export function writeStatus(res: ServerResponse, code: number, reason: string, message: string, details?: object): void {
  res.writeHead(code, { 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff' });
  res.end(`${JSON.stringify(status(code, reason, message, details))}\n`);
}

function writeJson(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Whether the client asked for a Table (`kubectl get --raw` with as=Table, or kubectl get of the resource). */
function wantsTable(req: IncomingMessage): boolean {
  const accept = req.headers.accept ?? '';
  return /(^|[;,\s])as=Table([;,\s]|$)/.test(accept) && /(^|[;,\s])g=meta\.k8s\.io([;,\s]|$)/.test(accept);
}

function objectMeta(object: MetaOnly, now: number, namespaced: boolean): Record<string, unknown> {
  const meta: Record<string, unknown> = { name: object.metadata?.name ?? '' };
  if (namespaced) meta.namespace = object.metadata?.namespace ?? '';
  // As metrics-server: the object is made at the request, so its creation time is now.
  meta.creationTimestamp = metaTime(now);
  if (object.metadata?.labels && Object.keys(object.metadata.labels).length > 0) meta.labels = object.metadata.labels;
  return meta;
}

/**
 * The `metrics.k8s.io/v1beta1` API as metrics-server serves it: discovery of the group, NodeMetrics
 * and PodMetrics by list (label and field selectors; pods in a namespace or all) and get, answered
 * from the nodes and pods known and the usage stored; an object without two readings yet is left out
 * of lists and is NotFound on get. Read only: other methods are 405, and watch is not served.
 */
export class MetricsApi {
  constructor(private readonly source: MetricsSource) {}

  handles(path: string): boolean {
    return routeOf(path) !== undefined;
  }

  serve(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'https://metrics');
    const route = routeOf(url.pathname);
    if (!route) return writeStatus(res, 404, 'NotFound', 'the server could not find the requested resource', {});
    if ((req.method ?? 'GET') !== 'GET' && req.method !== 'HEAD')
      return writeStatus(res, 405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`, {});
    if (route.kind === 'discovery') return writeJson(res, route.body());
    const watch = url.searchParams.get('watch');
    if (watch === 'true' || watch === '1')
      return writeStatus(res, 405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
    try {
      const body = route.resource === 'nodes' ? this.nodes(route.name, url.searchParams) : this.pods(route.namespace, route.name, url.searchParams);
      writeJson(res, wantsTable(req) ? this.table(body) : body);
    } catch (error) {
      if (error instanceof StatusError) return writeStatus(res, error.code, error.reason, error.status.message ?? '', error.status.details);
      throw error;
    }
  }

  private selectors(params: URLSearchParams): { labels?: LabelQuery; fields?: FieldQuery } {
    const label = params.get('labelSelector');
    const field = params.get('fieldSelector');
    return {
      labels: label ? LabelQuery.parse(label) : undefined,
      fields: field ? FieldQuery.parse(field) : undefined,
    };
  }

  private matches(object: MetaOnly, selectors: { labels?: LabelQuery; fields?: FieldQuery }, namespaced: boolean): boolean {
    if (selectors.labels && !selectors.labels.matches(object.metadata?.labels)) return false;
    if (selectors.fields) {
      const fields: Record<string, string> = { 'metadata.name': object.metadata?.name ?? '' };
      if (namespaced) fields['metadata.namespace'] = object.metadata?.namespace ?? '';
      if (!selectors.fields.matches((field) => fields[field])) return false;
    }
    return true;
  }

  private nodeMetrics(node: MetaOnly, now: number): Record<string, unknown> | undefined {
    const usage = this.source.nodeUsage(node.metadata?.name ?? '');
    if (!usage) return undefined;
    return {
      metadata: objectMeta(node, now, false),
      timestamp: metaTime(usage.timestamp),
      window: windowText(usage.windowMs),
      usage: usageList(usage.cpuNanoCores, usage.memoryBytes),
    };
  }

  private podMetrics(pod: MetaOnly, now: number): Record<string, unknown> | undefined {
    const usage = this.source.podUsage(pod.metadata?.namespace ?? '', pod.metadata?.name ?? '');
    if (!usage) return undefined;
    return {
      metadata: objectMeta(pod, now, true),
      timestamp: metaTime(usage.timestamp),
      window: windowText(usage.windowMs),
      containers: usage.containers.map((c) => ({ name: c.name, usage: usageList(c.usage.cpuNanoCores, c.usage.memoryBytes) })),
    };
  }

  private nodes(name: string | undefined, params: URLSearchParams): Record<string, unknown> {
    const now = Date.now();
    if (name !== undefined) {
      const node = this.source.node(name);
      // As metrics-server: a node it does not know is the lister's NotFound; one without two readings is its own.
      if (!node) throw newNotFound('node', name);
      const metrics = this.nodeMetrics(node, now);
      if (!metrics) throw newNotFound({ group: METRICS_GROUP, resource: 'nodemetrics' }, name);
      return { kind: 'NodeMetrics', apiVersion: GROUP_VERSION, ...metrics };
    }
    const selectors = this.selectors(params);
    const items = this.source
      .nodes()
      .filter((n) => this.matches(n, selectors, false))
      .sort((a, b) => compare(a.metadata?.name, b.metadata?.name))
      .map((n) => this.nodeMetrics(n, now))
      .filter((m): m is Record<string, unknown> => m !== undefined);
    return { kind: 'NodeMetricsList', apiVersion: GROUP_VERSION, metadata: {}, items };
  }

  private pods(namespace: string | undefined, name: string | undefined, params: URLSearchParams): Record<string, unknown> {
    const now = Date.now();
    if (name !== undefined) {
      const pod = this.source.pod(namespace ?? '', name);
      if (!pod) throw newNotFound('pods', name);
      const metrics = this.podMetrics(pod, now);
      if (!metrics) throw newNotFound({ group: METRICS_GROUP, resource: 'podmetrics' }, `${namespace ?? ''}/${name}`);
      return { kind: 'PodMetrics', apiVersion: GROUP_VERSION, ...metrics };
    }
    const selectors = this.selectors(params);
    const items = this.source
      .pods(namespace)
      .filter((p) => this.matches(p, selectors, true))
      .sort((a, b) => compare(a.metadata?.namespace, b.metadata?.namespace) || compare(a.metadata?.name, b.metadata?.name))
      .map((p) => this.podMetrics(p, now))
      .filter((m): m is Record<string, unknown> => m !== undefined);
    return { kind: 'PodMetricsList', apiVersion: GROUP_VERSION, metadata: {}, items };
  }

  /** metrics-server's Table: the name, each resource's usage (a pod's containers summed) and the window. */
  private table(body: Record<string, unknown>): unknown {
    const items = (body.items as Array<Record<string, unknown>> | undefined) ?? [body];
    const rows = items.map((item) => {
      let cpu = 0;
      let memory = 0;
      const usages = item.containers
        ? (item.containers as Array<{ usage: { cpu: string; memory: string } }>).map((c) => c.usage)
        : [item.usage as { cpu: string; memory: string }];
      for (const u of usages) {
        cpu += Number(canonicalNanos(u.cpu));
        memory += Number(canonicalNanos(u.memory) / 1_000_000_000n);
      }
      const sums = usageList(cpu, memory);
      const { kind: _kind, apiVersion: _apiVersion, ...object } = item;
      const meta = item.metadata as { name: string };
      return {
        cells: [meta.name, sums.cpu, sums.memory, item.window],
        object: { kind: String(body.kind).replace(/List$/, ''), apiVersion: GROUP_VERSION, ...object },
      };
    });
    return {
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      metadata: {},
      columnDefinitions: [
        { name: 'Name', type: 'string', format: 'name', description: 'Name of the resource', priority: 0 },
        { name: 'cpu', type: 'string', format: 'quantity', description: '', priority: 0 },
        { name: 'memory', type: 'string', format: 'quantity', description: '', priority: 0 },
        { name: 'Window', type: 'string', format: 'duration', description: '', priority: 0 },
      ],
      rows,
    };
  }
}

function canonicalNanos(quantity: string): bigint {
  const match = /^(\d+)(n|u|m|Ki|Mi|Gi|Ti|k|M|G)?$/.exec(quantity);
  if (!match) return 0n;
  const scale: Record<string, bigint> = {
    n: 1n,
    u: 1_000n,
    m: 1_000_000n,
    '': 1_000_000_000n,
    k: 1_000_000_000_000n,
    M: 1_000_000_000_000_000n,
    G: 1_000_000_000_000_000_000n,
    Ki: 1024n * 1_000_000_000n,
    Mi: 1024n ** 2n * 1_000_000_000n,
    Gi: 1024n ** 3n * 1_000_000_000n,
    Ti: 1024n ** 4n * 1_000_000_000n,
  };
  return BigInt(match[1]) * (scale[match[2] ?? ''] ?? 1n);
}

function compare(a: string | undefined, b: string | undefined): number {
  const x = a ?? '';
  const y = b ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
}
