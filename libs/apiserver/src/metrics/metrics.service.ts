import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { specGroupName } from '@svc/machinery';
import type { RequestInfo } from '../request/request-info';
import { metricScope, metricVerb } from '../request/request-classification';
import { RequestSeries } from './request-series';

/** What a request was besides its RequestInfo, for the labels Kubernetes derives from the raw request. */
export interface RequestObservation {
  /** Content-Type of the request, to tell apply from other patches. */
  contentType?: string;
  /** The `dryRun` query values. */
  dryRun?: string[];
  /** True when no route answered the path: the labels are then blanked to keep their cardinality bounded. */
  unmatched?: boolean;
}

export interface LongRunningLabels {
  verb: string;
  group: string;
  version: string;
  resource: string;
  scope: string;
  subresource?: string;
  component?: string;
}

export interface DeprecatedApiLabels {
  group: string;
  version: string;
  resource: string;
  subresource?: string;
  removedRelease?: string;
}

export type InflightKind = 'readOnly' | 'mutating';

export const API_SERVER_COMPONENT = 'apiserver';

// Kubernetes' buckets for apiserver_request_duration_seconds.
const DURATION_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

/** The labels of a request, exposed in this order (the objects requestLabels builds keep it). */
type RequestLabelName = 'verb' | 'dry_run' | 'group' | 'version' | 'resource' | 'subresource' | 'scope' | 'component';

/**
 * The API server's Prometheus metrics under Kubernetes' names, in a registry of its own so that
 * several servers in one process (tests) do not collide.
 */
export class MetricsService {
  readonly registry = new Registry();
  private readonly requests: RequestSeries;
  /** Requests in flight by kind, set on every request and read into the gauge when scraped. */
  private readonly inflightCounts: Record<InflightKind, number> = { readOnly: 0, mutating: 0 };
  private readonly longRunning: Gauge<'verb' | 'group' | 'version' | 'resource' | 'subresource' | 'scope' | 'component'>;
  private readonly storageObjects: Gauge<'resource'>;
  private readonly storageSize: Gauge<'storage_cluster_id'>;
  private readonly deprecatedApis: Gauge<'group' | 'version' | 'resource' | 'subresource' | 'removed_release'>;
  /** The last count of stored objects by resource (`pods`, `deployments.apps`): APF's width of a LIST. */
  private readonly storedCounts = new Map<string, number>();

  constructor(options: { defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.requests = new RequestSeries(
      this.registry,
      {
        name: 'apiserver_request_total',
        help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      },
      {
        name: 'apiserver_request_duration_seconds',
        help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
        buckets: DURATION_BUCKETS,
      },
    );
    const inflightCounts = this.inflightCounts;
    new Gauge({
      name: 'apiserver_current_inflight_requests',
      help: 'Number of requests currently being served, by kind (readOnly or mutating).',
      labelNames: ['request_kind'],
      registers,
      collect() {
        this.set({ request_kind: 'readOnly' }, inflightCounts.readOnly);
        this.set({ request_kind: 'mutating' }, inflightCounts.mutating);
      },
    });
    this.longRunning = new Gauge({
      name: 'apiserver_longrunning_requests',
      help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component.',
      labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
      registers,
    });
    this.storageObjects = new Gauge({
      name: 'apiserver_storage_objects',
      help: 'Number of stored objects at the time of last check split by kind.',
      labelNames: ['resource'],
      registers,
    });
    this.storageSize = new Gauge({
      name: 'apiserver_storage_size_bytes',
      help: 'Size of the storage database file physically allocated in bytes.',
      labelNames: ['storage_cluster_id'],
      registers,
    });
    this.deprecatedApis = new Gauge({
      name: 'apiserver_requested_deprecated_apis',
      help: 'Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.',
      labelNames: ['group', 'version', 'resource', 'subresource', 'removed_release'],
      registers,
    });
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /** Counts a finished request and records its latency. The handler chain calls this for every request. */
  observeRequest(info: RequestInfo, code: number, seconds: number, observation: RequestObservation = {}): void {
    this.requests.observe(requestLabels(info, observation), code, seconds);
  }

  setInflight(kind: InflightKind, count: number): void {
    this.inflightCounts[kind] = count;
  }

  /** Number of objects of a resource (`pods`, `deployments.apps`) in the store. */
  setStorageObjects(resource: string, count: number): void {
    this.storageObjects.set({ resource }, count);
    this.storedCounts.set(resource, count);
  }

  /** The stored objects of a resource at the last count, the group under either of its names; undefined before any count. */
  storedObjectCount(resource: string, group: string): number | undefined {
    const spec = specGroupName(group);
    return this.storedCounts.get(spec === '' ? resource : `${resource}.${spec}`);
  }

  /** Bytes a store's database takes (`--store-db-metric-poll-interval`). */
  setStorageSize(storageClusterId: string, bytes: number): void {
    this.storageSize.set({ storage_cluster_id: storageClusterId }, bytes);
  }

  watchOpened(labels: LongRunningLabels): void {
    this.longRunning.inc(longRunningLabels(labels));
  }

  watchClosed(labels: LongRunningLabels): void {
    this.longRunning.dec(longRunningLabels(labels));
  }

  /** Marks that a deprecated API version was requested (gauge set to 1, as Kubernetes does). */
  markDeprecatedApiRequested(labels: DeprecatedApiLabels): void {
    this.deprecatedApis.set(
      {
        group: labels.group,
        version: labels.version,
        resource: labels.resource,
        subresource: labels.subresource ?? '',
        removed_release: labels.removedRelease ?? '',
      },
      1,
    );
  }

  /** The exposition text and its content type. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** The labels Kubernetes gives a request: the path as subresource and no component for non-resource paths. */
export function requestLabels(info: RequestInfo, observation: RequestObservation = {}): Record<RequestLabelName, string> {
  const verb = metricVerb(info, observation.contentType);
  const dryRun = observation.dryRun?.length ? [...new Set(observation.dryRun)].sort().join(',') : '';
  if (observation.unmatched) {
    return { verb, dry_run: dryRun, group: '', version: '', resource: '', subresource: '', scope: '', component: '' };
  }
  if (!info.isResourceRequest) {
    return { verb, dry_run: dryRun, group: '', version: '', resource: '', subresource: info.path, scope: '', component: '' };
  }
  return {
    verb,
    dry_run: dryRun,
    group: info.group,
    version: info.version,
    resource: info.resource,
    subresource: info.subresource,
    scope: metricScope(info),
    component: API_SERVER_COMPONENT,
  };
}

function longRunningLabels(labels: LongRunningLabels): Record<string, string> {
  return {
    verb: labels.verb,
    group: labels.group,
    version: labels.version,
    resource: labels.resource,
    subresource: labels.subresource ?? '',
    scope: labels.scope,
    component: labels.component ?? API_SERVER_COMPONENT,
  };
}

/** The long-running gauge labels of a request, for watchOpened/watchClosed. */
export function longRunningLabelsOf(info: RequestInfo, contentType?: string): LongRunningLabels {
  return {
    verb: metricVerb(info, contentType),
    group: info.group,
    version: info.version,
    resource: info.resource,
    subresource: info.subresource,
    scope: metricScope(info),
  };
}
