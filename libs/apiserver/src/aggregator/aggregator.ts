import { Logger } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import {
  apiServiceAvailableCondition,
  apiServiceDefinition,
  compareVersions,
  endpointsDefinition,
  isRemoteAPIService,
  serviceDefinition,
  type APIService,
  type Endpoints,
  type Service,
} from '@svc/api';
import type { RequestHeaderOptions } from '@svc/machinery';
import type { ApiGroup } from '../discovery/discovery-documents';
import type { AggregatedApis } from '../discovery/merged-discovery';
import type { ServedApis } from '../discovery/served-apis';
import type { ResourceRegistries } from '../registry/registries';
import { decodeParam, type MuxRoute } from '../serving/mux';
import type { ServerPart } from '../serving/serving-core';
import { AggregatedDiscovery, type AggregatedGroup } from './aggregated-discovery';
import {
  backendTls,
  DEFAULT_IDENTITY_HEADERS,
  resolveBackend,
  type AggregatorRouting,
  type IdentityHeaderNames,
  type ProxyClientCertificate,
  type ServiceObjects,
} from './api-service-backend';
import { plainError, proxyToBackend } from './api-service-proxy';
import { AvailabilityController } from './availability-controller';
import { KindMirror } from './kind-mirror';
import { LocalAPIServiceRegistration } from './local-api-services';

/** How the API server aggregates the group versions of other servers (kube-aggregator's options). */
export interface AggregatorOptions {
  /** `--enable-aggregator-routing`: true routes to an endpoint of the service, false (Kubernetes' default) to its cluster IP. */
  enableAggregatorRouting?: boolean;
  /** `--proxy-client-cert-file` and `--proxy-client-key-file`: the identity presented to aggregated servers. */
  proxyClientCertFile?: string;
  proxyClientKeyFile?: string;
}

/**
 * API aggregation inside the API server, as kube-aggregator wraps kube-apiserver: requests under
 * `/apis/<group>/<version>` of a remote APIService are proxied to its service once this server has
 * authenticated and authorized them; `/apis/<group>` of such a group is answered from the APIServices;
 * discovery lists the aggregated groups; the local APIServices are kept, and every APIService's
 * Available condition.
 */
export class Aggregator implements AggregatedApis {
  readonly apiServices: KindMirror<APIService>;
  private readonly services: KindMirror<Service>;
  private readonly endpoints: KindMirror<Endpoints>;
  private readonly objects: ServiceObjects;
  private readonly routing: AggregatorRouting;
  private readonly proxyClient: ProxyClientCertificate | undefined;
  private readonly headerNames: IdentityHeaderNames;
  private readonly stripped: (lower: string) => boolean;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });
  private readonly discovery: AggregatedDiscovery;
  private readonly availability: AvailabilityController;
  private readonly registration: LocalAPIServiceRegistration;

  constructor(
    private readonly registries: ResourceRegistries,
    private readonly servedApis: ServedApis,
    options: AggregatorOptions,
    requestHeader: RequestHeaderOptions | undefined,
  ) {
    const logger = new Logger('Aggregator');
    const log = (message: string): void => logger.warn(message);
    this.apiServices = new KindMirror(() => registries.kind<APIService>(apiServiceDefinition));
    this.services = new KindMirror(() => registries.kind<Service>(serviceDefinition));
    this.endpoints = new KindMirror(() => registries.kind<Endpoints>(endpointsDefinition));
    this.objects = { service: (ns, n) => this.services.get(ns, n), endpoints: (ns, n) => this.endpoints.get(ns, n) };
    this.routing = options.enableAggregatorRouting === true ? 'endpoints' : 'cluster-ip';
    this.proxyClient =
      options.proxyClientCertFile && options.proxyClientKeyFile
        ? { certPem: readFileSync(options.proxyClientCertFile, 'utf8'), keyPem: readFileSync(options.proxyClientKeyFile, 'utf8') }
        : undefined;
    // Always X-Remote-*, whatever names --requestheader-* accept, as client-go's auth proxy round tripper sends them.
    this.headerNames = DEFAULT_IDENTITY_HEADERS;
    const strippedNames = new Set(
      [...(requestHeader?.usernameHeaders ?? []), ...(requestHeader?.groupHeaders ?? []), this.headerNames.user, this.headerNames.group].map((h) =>
        h.toLowerCase(),
      ),
    );
    const strippedPrefixes = [...(requestHeader?.extraHeadersPrefix ?? []), this.headerNames.extraPrefix, 'x-remote-'].map((h) => h.toLowerCase());
    this.stripped = (lower) => strippedNames.has(lower) || strippedPrefixes.some((p) => lower.startsWith(p));
    this.discovery = new AggregatedDiscovery(
      () => this.apiServices.list(),
      this.objects,
      this.routing,
      () => this.proxyClient,
    );
    this.availability = new AvailabilityController({
      apiServices: this.apiServices,
      services: this.services,
      endpoints: this.endpoints,
      registry: () => registries.kind<APIService>(apiServiceDefinition),
      routing: this.routing,
      proxyClient: () => this.proxyClient,
      log,
      onAvailabilityChange: (name) => {
        const apiService = this.apiServices.get('', name);
        if (apiService) void this.discovery.refresh(apiService);
      },
    });
    this.registration = new LocalAPIServiceRegistration(servedApis, this.apiServices, () => registries.kind<APIService>(apiServiceDefinition), log);
    this.apiServices.onChange((now, before) => {
      if (now !== undefined && isRemoteAPIService(now) && JSON.stringify(now.spec) !== JSON.stringify(before?.spec)) void this.discovery.refresh(now);
    });
  }

  /** The aggregated groups as discovery lists them. */
  groups(): AggregatedGroup[] {
    return this.discovery.groups();
  }

  /** The remote APIService of a group version, if one names it. */
  remote(group: string, version: string): APIService | undefined {
    const apiService = this.apiServices.get('', `${version}.${group}`);
    return apiService !== undefined && isRemoteAPIService(apiService) ? apiService : undefined;
  }

  private hasRemoteGroup(group: string): boolean {
    return this.apiServices.list().some((a) => isRemoteAPIService(a) && a.spec.group === group);
  }

  /** The routes (installed before the resource layer's, which they take over for remote group versions) and the controllers. */
  part(): ServerPart {
    return (core) => {
      core.health.addPostStartHook('start-kube-aggregator-informers', async () => {
        this.apiServices.start();
        this.services.start();
        this.endpoints.start();
        await Promise.all([this.apiServices.whenSynced(), this.services.whenSynced(), this.endpoints.whenSynced()]);
      });
      core.health.addPostStartHook('apiservice-registration-controller', () => this.registration.start());
      core.health.addPostStartHook('apiservice-status-available-controller', async () => {
        await this.apiServices.whenSynced();
        this.availability.start();
      });
      core.health.addPostStartHook('apiservice-discovery-controller', () => this.discovery.start());
      core.lifecycle.onStopped(() => {
        this.registration.stop();
        this.availability.stop();
        this.discovery.stop();
        this.apiServices.stop();
        this.services.stop();
        this.endpoints.stop();
        this.agent.destroy();
      });
      const proxied = (params: Readonly<Record<string, string>>): boolean => this.remote(safeDecode(params.group), safeDecode(params.version)) !== undefined;
      // `/apis/<g>` and `/apis/<g>/<v>` are the discovery routes', which hand remote ones here (groupDocument, versionHandler).
      return [{ path: '/apis/{group}/{version}/{path...}', when: proxied, handler: this.proxy }];
    };
  }

  /** kube-aggregator's group handler: the document of a group that has a remote version; undefined otherwise. */
  groupDocument(group: string): ApiGroup | undefined {
    return this.hasRemoteGroup(group) ? this.apiGroup(group) : undefined;
  }

  /** The handler of a remote group version's own discovery document (proxied); undefined for a local one. */
  versionHandler(group: string, version: string): MuxRoute['handler'] | undefined {
    return this.remote(group, version) !== undefined ? this.proxy : undefined;
  }

  /** A request of a remote group version, proxied to the service of its APIService. */
  private readonly proxy: MuxRoute['handler'] = async (req, res, params) => {
    const raw = res.stream();
    const apiService = this.remote(decodeParam(params.group), decodeParam(params.version));
    const ref = apiService?.spec?.service;
    if (raw === undefined || apiService === undefined || !ref) return;
    // kube-aggregator answers for a server it has not found available without asking it.
    if (apiServiceAvailableCondition(apiService)?.status !== 'True') return plainError(raw, 503, 'service unavailable');
    let backend;
    try {
      backend = resolveBackend(this.objects, ref, this.routing);
    } catch {
      return plainError(raw, 503, 'service unavailable');
    }
    const tls = backendTls(apiService, backend, this.proxyClient);
    await proxyToBackend(req, raw, { backend, tls, agent: this.agent, headerNames: this.headerNames, strippedHeaders: this.stripped });
  };

  /** kube-aggregator's apiGroupHandler: the group's versions from its APIServices, local ones included, by priority. */
  private apiGroup(group: string): ApiGroup | undefined {
    const apiServices = this.apiServices
      .list()
      .filter((a) => a.spec?.group === group)
      .sort((a, b) => (b.spec?.versionPriority ?? 0) - (a.spec?.versionPriority ?? 0) || compareVersions(a.spec?.version ?? '', b.spec?.version ?? ''));
    const local = this.servedApis.group(group)?.versions ?? [];
    const versions = apiServices.map((a) => ({ groupVersion: `${group}/${a.spec?.version ?? ''}`, version: a.spec?.version ?? '' }));
    for (const v of local) if (!versions.some((x) => x.version === v.version)) versions.push(v);
    if (versions.length === 0) return undefined;
    return { kind: 'APIGroup', apiVersion: 'v1', name: group, versions, preferredVersion: versions[0] };
  }
}

function safeDecode(value: string | undefined): string {
  try {
    return decodeURIComponent(value ?? '');
  } catch {
    return '';
  }
}
