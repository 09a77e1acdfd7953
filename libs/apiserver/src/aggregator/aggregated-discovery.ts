import { request as httpsRequest } from 'node:https';
import { compareVersions, isRemoteAPIService, type APIService } from '@svc/api';
import type { ApiResource, ApiResourceDiscovery, ApiSubresourceDiscovery, ApiVersionDiscovery } from '../discovery/discovery-documents';
import {
  hostForUrl,
  backendTls,
  DEFAULT_IDENTITY_HEADERS,
  identityHeaders,
  resolveBackend,
  servicePortOf,
  type AggregatorRouting,
  type ProxyClientCertificate,
  type ServiceObjects,
} from './api-service-backend';

// kube-aggregator's discovery manager refreshes every remote APIService's document this often.
const REFRESH_MS = 60_000;
const FETCH_TIMEOUT_MS = 5_000;
// A backend's discovery document is read up to this size; a larger one counts as a failed fetch.
const MAX_DOCUMENT_BYTES = 8 * 1024 * 1024;
const AGGREGATED_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

/** An aggregated group version as discovery lists it: its priorities, and its resources as last fetched. */
export interface AggregatedVersion {
  version: string;
  versionPriority: number;
  resources: ApiResourceDiscovery[];
  /** The server could not be asked (or answered badly) the last time: Kubernetes' Stale freshness. */
  stale: boolean;
}

export interface AggregatedGroup {
  name: string;
  /** The highest groupPriorityMinimum of its versions. */
  priority: number;
  versions: AggregatedVersion[];
}

interface Cached {
  versions: Map<string, ApiVersionDiscovery>;
  stale: boolean;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** Kubernetes' ConvertGroupVersionIntoToDiscovery: a legacy APIResourceList as aggregated resources. */
export function legacyToDiscovery(group: string, version: string, resources: readonly ApiResource[]): ApiResourceDiscovery[] {
  const out = new Map<string, ApiResourceDiscovery>();
  for (const r of resources) {
    if (typeof r.name !== 'string' || r.name.includes('/')) continue;
    out.set(r.name, {
      resource: r.name,
      responseKind: { group: r.group ?? group, version: r.version ?? version, kind: r.kind },
      scope: r.namespaced ? 'Namespaced' : 'Cluster',
      singularResource: r.singularName ?? '',
      verbs: [...(r.verbs ?? [])],
      ...(r.shortNames?.length ? { shortNames: [...r.shortNames] } : {}),
      ...(r.categories?.length ? { categories: [...r.categories] } : {}),
    });
  }
  for (const r of resources) {
    if (typeof r.name !== 'string') continue;
    const [parent, sub] = r.name.split('/');
    const owner = sub === undefined ? undefined : out.get(parent);
    if (owner === undefined || sub === undefined) continue;
    const subresource: ApiSubresourceDiscovery = {
      subresource: sub,
      responseKind: { group: r.group ?? group, version: r.version ?? version, kind: r.kind },
      verbs: [...(r.verbs ?? [])],
    };
    owner.subresources = [...(owner.subresources ?? []), subresource];
  }
  return [...out.values()];
}

/**
 * The discovery of aggregated group versions (kube-aggregator's discovery manager): each remote
 * APIService's server is asked for its aggregated discovery (`/apis`, apidiscovery.k8s.io/v2), or its
 * legacy `/apis/<group>/<version>` when it serves none, when the APIService changes and every minute;
 * what it said is kept per service and marked stale when it could not be asked again.
 */
export class AggregatedDiscovery {
  private readonly cache = new Map<string, Cached>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly apiServices: () => APIService[],
    private readonly objects: ServiceObjects,
    private readonly routing: AggregatorRouting,
    private readonly proxyClient: () => ProxyClientCertificate | undefined,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      for (const apiService of this.apiServices()) void this.refresh(apiService);
    }, REFRESH_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Asks the APIService's server again (at most one fetch per service at a time). */
  refresh(apiService: APIService): Promise<void> {
    if (!isRemoteAPIService(apiService)) return Promise.resolve();
    const key = this.keyOf(apiService);
    const running = this.inFlight.get(key);
    if (running) return running;
    const fetch = this.fetch(apiService, key).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, fetch);
    return fetch;
  }

  /** The groups of remote APIServices, each with its versions in their discovery order. */
  groups(): AggregatedGroup[] {
    const groups = new Map<string, AggregatedGroup>();
    for (const apiService of this.apiServices()) {
      if (!isRemoteAPIService(apiService)) continue;
      const name = apiService.spec.group ?? '';
      const version = apiService.spec.version ?? '';
      const group = groups.get(name) ?? { name, priority: 0, versions: [] };
      group.priority = Math.max(group.priority, apiService.spec.groupPriorityMinimum);
      const cached = this.cache.get(this.keyOf(apiService));
      const found = cached?.versions.get(`${name}/${version}`);
      group.versions.push({
        version,
        versionPriority: apiService.spec.versionPriority,
        resources: found?.resources ?? [],
        stale: cached === undefined || cached.stale,
      });
      groups.set(name, group);
    }
    for (const group of groups.values()) {
      group.versions.sort((a, b) => b.versionPriority - a.versionPriority || compareVersions(a.version, b.version));
    }
    return [...groups.values()].sort((a, b) => b.priority - a.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  private keyOf(apiService: APIService): string {
    const ref = apiService.spec?.service;
    return `${ref?.namespace ?? ''}/${ref?.name ?? ''}:${ref ? servicePortOf(ref) : 0}|${apiService.spec?.group ?? ''}/${apiService.spec?.version ?? ''}`;
  }

  private async fetch(apiService: APIService, key: string): Promise<void> {
    const group = apiService.spec?.group ?? '';
    const version = apiService.spec?.version ?? '';
    try {
      const versions = new Map<string, ApiVersionDiscovery>();
      const aggregated = await this.get(apiService, '/apis', AGGREGATED_ACCEPT);
      const list = aggregated.status === 200 ? record(aggregated.body) : undefined;
      if (list?.kind === 'APIGroupDiscoveryList' && Array.isArray(list.items)) {
        for (const item of list.items) {
          const name = record(record(item)?.metadata)?.name;
          const itemVersions = record(item)?.versions;
          if (typeof name !== 'string' || !Array.isArray(itemVersions)) continue;
          for (const v of itemVersions) {
            const entry = record(v);
            if (typeof entry?.version === 'string' && Array.isArray(entry.resources)) {
              versions.set(`${name}/${entry.version}`, { version: entry.version, resources: entry.resources as ApiResourceDiscovery[], freshness: 'Current' });
            }
          }
        }
      } else {
        const legacy = await this.get(apiService, `/apis/${group}/${version}`, 'application/json');
        const body = record(legacy.body);
        if (legacy.status !== 200 || !Array.isArray(body?.resources))
          throw new Error(`failed to download discovery for /apis/${group}/${version}: ${legacy.status}`);
        versions.set(`${group}/${version}`, { version, resources: legacyToDiscovery(group, version, body.resources as ApiResource[]), freshness: 'Current' });
      }
      this.cache.set(key, { versions, stale: false });
    } catch {
      const known = this.cache.get(key);
      this.cache.set(key, { versions: known?.versions ?? new Map<string, ApiVersionDiscovery>(), stale: true });
    }
  }

  /** A GET of the APIService's server as system:kube-aggregator, its JSON answer bounded in size and time. */
  private get(apiService: APIService, path: string, accept: string): Promise<{ status: number; body: unknown }> {
    const backend = resolveBackend(this.objects, apiService.spec!.service!, this.routing);
    const tls = backendTls(apiService, backend, this.proxyClient());
    const headers = [
      ['Host', `${hostForUrl(backend.host)}:${backend.port}`],
      ['Accept', accept],
      ...identityHeaders({ name: 'system:kube-aggregator', groups: [] }, DEFAULT_IDENTITY_HEADERS),
    ];
    return new Promise((resolve, reject) => {
      const request = httpsRequest(
        {
          host: backend.host,
          port: backend.port,
          path,
          method: 'GET',
          headers: headers.flat() as unknown as Record<string, string>,
          ...tls,
          agent: false,
          timeout: FETCH_TIMEOUT_MS,
        },
        (answer) => {
          const chunks: Buffer[] = [];
          let size = 0;
          answer.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_DOCUMENT_BYTES) request.destroy(new Error('discovery document too large'));
            else chunks.push(chunk);
          });
          answer.on('end', () => {
            let body: unknown;
            try {
              body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            } catch {
              body = undefined;
            }
            resolve({ status: answer.statusCode ?? 0, body });
          });
          answer.on('error', reject);
        },
      );
      const deadline = setTimeout(() => request.destroy(new Error('timed out')), FETCH_TIMEOUT_MS);
      request.on('close', () => clearTimeout(deadline));
      request.on('timeout', () => request.destroy(new Error('timed out')));
      request.on('error', reject);
      request.end();
    });
  }
}
