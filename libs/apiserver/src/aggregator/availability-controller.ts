import { request as httpsRequest } from 'node:https';
import {
  API_SERVICE_AVAILABLE,
  API_SERVICE_REASONS,
  apiServiceAvailableCondition,
  isRemoteAPIService,
  type APIService,
  type APIServiceCondition,
  type Endpoints,
  type Service,
} from '@svc/api';
import { SERVER_FIELD_MANAGER } from '../registry/core/namespace/bootstrap-namespaces';
import type { ResourceRegistry } from '../registry/resource-registry';
import {
  backendTls,
  DEFAULT_IDENTITY_HEADERS,
  hostForUrl,
  identityHeaders,
  resolveBackend,
  servicePortOf,
  type AggregatorRouting,
  type ProxyClientCertificate,
  type ServiceObjects,
} from './api-service-backend';
import type { KindMirror } from './kind-mirror';

// kube-aggregator resyncs every APIService this often, to notice a server that stopped answering.
const RESYNC_MS = 30_000;
// A failed check is retried after 5 ms, doubling to 30 s, as its rate limiter does.
const RETRY_BASE_MS = 5;
const RETRY_MAX_MS = 30_000;
const DISCOVERY_CHECK_ATTEMPTS = 5;
const DISCOVERY_CHECK_TIMEOUT_MS = 5_000;

export interface AvailabilityControllerOptions {
  apiServices: KindMirror<APIService>;
  services: KindMirror<Service>;
  endpoints: KindMirror<Endpoints>;
  registry: () => ResourceRegistry<APIService> | undefined;
  routing: AggregatorRouting;
  proxyClient: () => ProxyClientCertificate | undefined;
  log: (message: string) => void;
  /** Told of each APIService whose Available condition this controller changed. */
  onAvailabilityChange?: (name: string) => void;
}

/** The condition this controller writes for a local APIService (kube-aggregator's NewLocalAvailableAPIServiceCondition). */
export function localAvailableCondition(now: string): APIServiceCondition {
  return {
    type: API_SERVICE_AVAILABLE,
    status: 'True',
    lastTransitionTime: now,
    reason: API_SERVICE_REASONS.local,
    message: 'Local APIServices are always available',
  };
}

/** SetAPIServiceCondition: the transition time moves only when the status does. */
function withCondition(apiService: APIService, condition: APIServiceCondition): APIService {
  const conditions = [...(apiService.status?.conditions ?? [])];
  const at = conditions.findIndex((c) => c.type === condition.type);
  if (at < 0) conditions.push(condition);
  else {
    const existing = conditions[at];
    conditions[at] = {
      ...existing,
      status: condition.status,
      lastTransitionTime: existing.status !== condition.status ? condition.lastTransitionTime : existing.lastTransitionTime,
      reason: condition.reason,
      message: condition.message,
    };
  }
  return { ...apiService, status: { ...apiService.status, conditions } };
}

/**
 * kube-aggregator's AvailableConditionController, run inside the API server: the Available condition
 * of every APIService, Local for those this server serves, and for the others the checks in Kubernetes'
 * order (the Service, its port, its endpoints, then a GET of the group version's discovery from the
 * server), rechecked when the APIService, its Service or its Endpoints change, and every 30 s.
 */
export class AvailabilityController {
  private readonly queue = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private working = false;
  private stopped = false;
  private resync: NodeJS.Timeout | undefined;

  constructor(private readonly options: AvailabilityControllerOptions) {
    options.apiServices.onChange((now, before) => this.enqueue((now ?? before)?.metadata?.name));
    const byService = (object: Service | Endpoints | undefined) => {
      const namespace = object?.metadata?.namespace;
      const name = object?.metadata?.name;
      for (const apiService of options.apiServices.list()) {
        const ref = apiService.spec?.service;
        if (ref && ref.namespace === namespace && ref.name === name) this.enqueue(apiService.metadata?.name);
      }
    };
    options.services.onChange((now, before) => byService(now ?? before));
    options.endpoints.onChange((now, before) => byService(now ?? before));
  }

  start(): void {
    for (const apiService of this.options.apiServices.list()) this.enqueue(apiService.metadata?.name);
    this.resync = setInterval(() => {
      for (const apiService of this.options.apiServices.list()) this.enqueue(apiService.metadata?.name);
    }, RESYNC_MS);
    this.resync.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.resync) clearInterval(this.resync);
    for (const timer of this.timers) clearTimeout(timer);
  }

  enqueue(name: string | undefined): void {
    if (name === undefined || this.stopped) return;
    this.queue.add(name);
    void this.work();
  }

  private async work(): Promise<void> {
    if (this.working) return;
    this.working = true;
    try {
      while (!this.stopped && this.queue.size > 0) {
        const name = this.queue.values().next().value as string;
        this.queue.delete(name);
        let retry = false;
        try {
          retry = await this.sync(name);
        } catch (error) {
          this.options.log(`APIService ${name}: ${error instanceof Error ? error.message : String(error)}`);
          retry = true;
        }
        if (retry) this.retryLater(name);
        else this.failures.delete(name);
      }
    } finally {
      this.working = false;
    }
  }

  private retryLater(name: string): void {
    const failures = (this.failures.get(name) ?? 0) + 1;
    this.failures.set(name, failures);
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        this.enqueue(name);
      },
      Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.min(failures, 20)),
    );
    timer.unref();
    this.timers.add(timer);
  }

  /** One check of an APIService; true when it should be retried soon (a failed discovery check, a conflict). */
  private async sync(name: string): Promise<boolean> {
    const apiService = this.options.apiServices.get('', name);
    if (apiService === undefined) return false;
    const condition = await this.check(apiService);
    const updated = withCondition(apiService, condition);
    const before = apiServiceAvailableCondition(apiService);
    const after = apiServiceAvailableCondition(updated);
    if (JSON.stringify(before) !== JSON.stringify(after)) {
      const registry = this.options.registry();
      if (registry === undefined) return false;
      await registry.updateStatus(updated, { fieldManager: SERVER_FIELD_MANAGER });
      if (before?.status !== after?.status) this.options.onAvailabilityChange?.(name);
    }
    return condition.reason === API_SERVICE_REASONS.failedDiscoveryCheck;
  }

  private async check(apiService: APIService): Promise<APIServiceCondition> {
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    if (!isRemoteAPIService(apiService)) return localAvailableCondition(now);
    const ref = apiService.spec.service;
    const namespace = ref.namespace ?? '';
    const serviceName = ref.name ?? '';
    const failed = (reason: string, message: string, status: 'False' | 'Unknown' = 'False'): APIServiceCondition => ({
      type: API_SERVICE_AVAILABLE,
      status,
      lastTransitionTime: now,
      reason,
      message,
    });
    const service = this.options.services.get(namespace, serviceName);
    if (service === undefined) {
      if (!this.options.services.hasSynced)
        return failed(API_SERVICE_REASONS.serviceAccessError, `service/${serviceName} in "${namespace}" cannot be checked due to: not synced`, 'Unknown');
      return failed(API_SERVICE_REASONS.serviceNotFound, `service/${serviceName} in "${namespace}" is not present`);
    }
    if ((service.spec?.type ?? 'ClusterIP') === 'ClusterIP') {
      const port = servicePortOf(ref);
      const servicePort = (service.spec?.ports ?? []).find((p) => p.port === port);
      if (servicePort === undefined)
        return failed(API_SERVICE_REASONS.servicePortError, `service/${serviceName} in "${namespace}" is not listening on port ${port}`);
      const portName = servicePort.name ?? '';
      const endpoints = this.options.endpoints.get(namespace, serviceName);
      if (endpoints === undefined) return failed(API_SERVICE_REASONS.endpointsNotFound, `cannot find endpoints for service/${serviceName} in "${namespace}"`);
      const active = (endpoints.subsets ?? []).some((s) => (s.addresses ?? []).length > 0 && (s.ports ?? []).some((p) => (p.name ?? '') === portName));
      if (!active) {
        return failed(
          API_SERVICE_REASONS.missingEndpoints,
          `endpoints for service/${serviceName} in "${namespace}" have no addresses with port name "${portName}"`,
        );
      }
    }
    const error = await this.discoveryCheck(apiService);
    if (error !== undefined) return failed(API_SERVICE_REASONS.failedDiscoveryCheck, error);
    return { type: API_SERVICE_AVAILABLE, status: 'True', lastTransitionTime: now, reason: API_SERVICE_REASONS.passed, message: 'all checks passed' };
  }

  /** Five GETs of the group version's discovery at once; the first success passes, else the last failure is the message. */
  private async discoveryCheck(apiService: APIService & { spec: { service: NonNullable<APIService['spec']>['service'] } }): Promise<string | undefined> {
    const objects: ServiceObjects = {
      service: (ns, n) => this.options.services.get(ns, n),
      endpoints: (ns, n) => this.options.endpoints.get(ns, n),
    };
    const attempt = async (): Promise<string | undefined> => {
      let backend;
      try {
        backend = resolveBackend(objects, apiService.spec.service!, this.options.routing);
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
      const group = apiService.spec.group ?? '';
      const path = apiService.metadata?.name === 'v1.' ? `/api/${apiService.spec.version ?? ''}` : `/apis/${group}/${apiService.spec.version ?? ''}`;
      const url = `https://${hostForUrl(backend.host)}:${backend.port}${path}`;
      // Kubernetes checks without verifying the server (a best-effort GET): the proxy itself verifies.
      const tls = { ...backendTls(apiService, backend, this.options.proxyClient()), rejectUnauthorized: false };
      const headers = [
        ['Host', `${hostForUrl(backend.host)}:${backend.port}`],
        ...identityHeaders({ name: 'system:kube-aggregator', groups: ['system:masters'] }, DEFAULT_IDENTITY_HEADERS),
      ];
      return new Promise<string | undefined>((resolve) => {
        const timer = setTimeout(() => {
          request.destroy();
          resolve(`timed out waiting for ${url}`);
        }, DISCOVERY_CHECK_TIMEOUT_MS + 1_000);
        const request = httpsRequest(
          {
            host: backend.host,
            port: backend.port,
            path,
            method: 'GET',
            headers: headers.flat() as unknown as Record<string, string>,
            ...tls,
            agent: false,
            timeout: DISCOVERY_CHECK_TIMEOUT_MS,
          },
          (answer) => {
            answer.resume();
            clearTimeout(timer);
            const code = answer.statusCode ?? 0;
            resolve(code >= 200 && code < 300 ? undefined : `failing or missing response from ${url}: bad status from ${url}: ${code}`);
          },
        );
        request.on('timeout', () => request.destroy(new Error('context deadline exceeded (Client.Timeout exceeded while awaiting headers)')));
        request.on('error', (error) => {
          clearTimeout(timer);
          resolve(`failing or missing response from ${url}: Get "${url}": ${error.message}`);
        });
        request.end();
      });
    };
    const results = await Promise.all(Array.from({ length: DISCOVERY_CHECK_ATTEMPTS }, attempt));
    return results.includes(undefined) ? undefined : results[results.length - 1];
  }
}
