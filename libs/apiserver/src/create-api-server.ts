import { Logger, type LoggerService, type LogLevel } from '@nestjs/common';
import { BINDING_RESOURCE, COMPONENT_STATUS_RESOURCE, REVIEW_RESOURCES, type Scheme } from '@svc/api';
import type { Storage } from '@svc/storage';
import type { AuditOptions } from './audit/audit-runtime';
import { servingConfig, type ApiServerServingConfig } from './config';
import { customResourceDefinitions } from './crd';
import { applyRuntimeConfig, discoveryRoutes, ServedApis, type RuntimeConfig } from './discovery';
import { resourceLayer } from './endpoints/resource-layer';
import { healthCheck } from './health/health-check';
import { OpenApiDocuments, openApiRoutes } from './openapi';
import { createResourceRegistries, type ResourcesOptions } from './registry/create-registries';
import type { ResourceRegistries } from './registry/registries';
import { services as servicesPart, serviceWriteHooks, type ServicesOptions } from './services';
import type { ServerPart } from './serving/serving-core';
import { startApiServer, type ApiServerHandle } from './start-api-server';
import { ensureClientCa, issueClientCertificate } from './auth/client-certificates';
import { ensureBootstrapPolicy } from './auth/rbac/bootstrap-reconcile';
import { moveLegacyKeys } from './registry/generic/legacy-key-layout';
import { AUTHENTICATION_INFO_POST_START_HOOK, AuthenticationInfoController } from './auth/authentication-info/authentication-info-controller';
import { buildSecurity, type AuthenticationOptions, type AuthorizationOptions, type Security } from './auth/security';
import { rbacEscalationCheck } from './auth/rbac/escalation-check';
import type { AdmissionPlugin } from './admission/admission';
import { loadWebhookAuthorizerOptions } from './auth/webhook/webhook-authorizer';
import { ownerReferencesPermissionEnforcement } from './admission/owner-references-permission';
import { privilegedContainersDenied } from './admission/privileged-containers';
import { EventExpiry } from './events/event-expiry';
import { ComponentStatuses } from './registry/core/component-statuses';
import { ApiServerIdentityLease, IDENTITY_POST_START_HOOKS } from './identity/apiserver-identity';
import { Aggregator, type AggregatorOptions } from './aggregator/aggregator';
import { APF_BOOTSTRAP_POST_START_HOOK, FlowControl } from './flowcontrol/flow-control';

/** What the API server is configured with: the serving shell's settings and the resource layer's. */
export interface ApiServerOptions {
  /** The serving shell (listen address, certificates, timeouts, limits); defaults fill what is left out. */
  serving?: Partial<ApiServerServingConfig>;
  /** The resource layer (watch cache, admission, store prefix); defaults fill what is left out. */
  resources?: Partial<Omit<ResourcesOptions, 'minRequestTimeoutSeconds' | 'maxRequestBodyBytes'>>;
  /** `--runtime-config`: built-in group versions turned off leave the scheme before anything serves it. */
  runtimeConfig?: RuntimeConfig;
  /** Cluster IP and node port ranges, and the `kubernetes` Service; Kubernetes' defaults fill what is left out. */
  services?: ServicesOptions;
  /** `--store-healthcheck-timeout` and `--store-readycheck-timeout`, in ms (the store's own default when absent). */
  storeHealthcheckTimeoutMs?: number;
  storeReadycheckTimeoutMs?: number;
  /** `--audit-*`: the policy and the log and webhook backends. */
  audit?: AuditOptions;
  /** Who may call (client certificates, tokens, anonymous); by default every request is anonymous. */
  authentication?: AuthenticationOptions;
  /** What callers may do (`--authorization-mode`); AlwaysAllow by default. */
  authorization?: AuthorizationOptions;
  /**
   * The identity Lease (`APIServerIdentity`, on by default as in Kubernetes): its duration and renewal
   * interval in seconds (`--identity-lease-duration-seconds`, `--identity-lease-renew-interval-seconds`);
   * false keeps none.
   */
  identityLease?: { durationSeconds?: number; renewIntervalSeconds?: number } | false;
  /** API aggregation: how APIServices' services are reached, and the front-proxy client certificate. */
  aggregator?: AggregatorOptions;
  /**
   * `--enable-priority-and-fairness` (true by default, as in Kubernetes): requests wait for seats of
   * their priority level in fair queues, the seats being `--max-requests-inflight` plus
   * `--max-mutating-requests-inflight`; false keeps the two plain in-flight caps.
   */
  priorityAndFairness?: boolean;
}

/** Kubernetes' `kube-system`, where API servers keep their identity Leases. */
const SYSTEM_NAMESPACE = 'svc-system';

/** Calls `attempt` until it succeeds, backing off from 10 ms to 500 ms, for up to `ms`; then its last error. */
async function retryFor(ms: number, attempt: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + ms;
  for (let delay = 10; ; delay = Math.min(delay * 2, 500)) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() + delay > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** The user the connection file written with self-issued client credentials authenticates as. */
export const ADMIN_USER = { name: 'svc-admin', groups: ['system:masters'] } as const;

export interface CreateApiServerInput {
  /** The store the server keeps objects in; the caller opens it and closes it after the server stops. */
  storage: Storage;
  /** The one scheme of the process: custom resource kinds are registered into it at run time. */
  scheme: Scheme;
  options?: ApiServerOptions;
  /** SIGTERM and SIGINT stop the server gracefully and exit the process. */
  handleSignals?: boolean;
  /** Where log lines go (see StartApiServerOptions.logger). */
  logger?: LoggerService | LogLevel[] | false;
  /** Where the `Client connection file written to <path>` line goes. */
  stdout?: (line: string) => void;
}

export const DEFAULT_RESOURCES_OPTIONS: Omit<ResourcesOptions, 'minRequestTimeoutSeconds' | 'maxRequestBodyBytes'> = {
  storePrefix: '/registry',
  watchCache: true,
  deleteCollectionWorkers: 1,
  storeCountMetricPollPeriodMs: 60_000,
};

/**
 * The API server, wired once for every caller (the svc-apiserver process and the test environment):
 * the serving shell with resources, discovery, OpenAPI and CustomResourceDefinitions over `storage`,
 * and the store's health in livez and readyz. Resolves once it listens.
 */
export async function createApiServer(input: CreateApiServerInput): Promise<ApiServerHandle> {
  const { storage, scheme } = input;
  const options = input.options ?? {};
  const serving = servingConfig(options.serving);
  const runtimeConfig = options.runtimeConfig ?? {};
  applyRuntimeConfig(scheme, runtimeConfig);
  // The escalation check and OwnerReferencesPermissionEnforcement ask the authorizers, which need the registries.
  const built: { security?: Security } = {};
  const resourcesOptions = resourcesOptionsOf(options, serving, scheme, () => built.security);
  // Before any cache or controller reads the store: a store of an earlier version's layout is moved first.
  await moveLegacyKeys(storage, resourcesOptions.storePrefix, scheme);
  const servicesOptions = options.services ?? {};
  const services = serviceWriteHooks(storage, resourcesOptions.storePrefix, servicesOptions);
  const registries = createResourceRegistries({ storage, scheme, options: resourcesOptions, writeHooks: services.writeHooks });
  const authentication = options.authentication ?? {};
  const ownClientCa = authentication.selfIssuedClients ? await ensureClientCa(serving.certDir) : undefined;
  const webhook = options.authorization?.webhook ? await loadWebhookAuthorizerOptions(options.authorization.webhook) : undefined;
  const security = buildSecurity(authentication, options.authorization ?? {}, registries, ownClientCa?.certPem, webhook);
  security.nodeGraph?.start();
  built.security = security;
  const clientCredentials = ownClientCa && serving.svcconfigOut ? await issueClientCertificate(ownClientCa, ADMIN_USER.name, ADMIN_USER.groups) : undefined;
  // The review APIs and component statuses are answered by REST of their own and stored nowhere.
  const servedApis = new ServedApis(scheme, runtimeConfig, [...REVIEW_RESOURCES, COMPONENT_STATUS_RESOURCE, BINDING_RESOURCE]);
  const aggregator = new Aggregator(registries, servedApis, options.aggregator ?? {}, authentication.requestHeader);
  const flowControl =
    options.priorityAndFairness !== false
      ? new FlowControl({ registries, serverConcurrencyLimit: serving.maxRequestsInflight + serving.maxMutatingRequestsInflight })
      : undefined;
  const parts = serverParts({ storage, scheme, options, serving, resourcesOptions, registries, security, services, servedApis, aggregator });
  if (flowControl) parts.push(flowControl.part);
  // The certificate it makes names the `kubernetes` Service's address, through which pods reach it.
  const server = await startApiServer({ ...serving, kubernetesServiceIP: serving.kubernetesServiceIP ?? services.kubernetesClusterIP }, parts, {
    handleSignals: input.handleSignals,
    logger: input.logger,
    stdout: input.stdout,
    audit: options.audit,
    security,
    clientCredentials,
    priorityAndFairness: flowControl,
  });
  if (flowControl) startFlowControl(server, flowControl);
  startServerControllers(server, registries, security, options.resources?.eventTtlMs);
  if (options.identityLease !== false) startIdentityLease(server, registries, options.identityLease ?? {});
  server.health.addLivezChecks(healthCheck('store', () => storage.healthCheck(options.storeHealthcheckTimeoutMs)));
  server.health.addReadyzChecks(healthCheck('store', () => storage.healthCheck(options.storeReadycheckTimeoutMs)));
  return server;
}

/** What the server's parts are made of: the store, the scheme, the options and what was built from them. */
interface PartsWiring {
  storage: Storage;
  scheme: Scheme;
  options: ApiServerOptions;
  serving: ApiServerServingConfig;
  resourcesOptions: ResourcesOptions;
  registries: ResourceRegistries;
  security: Security;
  services: ReturnType<typeof serviceWriteHooks>;
  servedApis: ServedApis;
  aggregator: Aggregator;
}

/** The parts installed on the serving shell: resources (with the REST of the reviews, tokens and component statuses), discovery, OpenAPI, CRDs, Services. */
function serverParts(w: PartsWiring): ServerPart[] {
  const { storage, scheme, options, serving, resourcesOptions, registries, security, services, servedApis, aggregator } = w;
  const servicesOptions = options.services ?? {};
  return [
    // First: the group versions of remote APIServices are proxied before any local route sees them.
    aggregator.part(),
    resourceLayer({
      storage,
      scheme,
      options: resourcesOptions,
      registries,
      isEnabled: (def) => servedApis.isEnabled(def),
      rest: {
        reviews: { authorizer: security.authorizer, tokenAuthenticators: security.tokenAuthenticators },
        tokens: security.serviceAccountTokens && { tokens: security.serviceAccountTokens, registries },
        componentStatuses: new ComponentStatuses({ storeHealth: () => storage.healthCheck(options.storeHealthcheckTimeoutMs) }),
      },
    }),
    () => discoveryRoutes(servedApis, serving, aggregator),
    (core) => openApiRoutes(new OpenApiDocuments(servedApis, { title: 'svc', version: core.config.version.gitVersion })),
    // Custom resources of a deleted definition are deleted through the registries, finalizers honoured.
    customResourceDefinitions({ scheme, storage, storePrefix: resourcesOptions.storePrefix, registries }),
    servicesPart({
      storage,
      storePrefix: resourcesOptions.storePrefix,
      registries,
      allocators: services.allocators,
      kubernetesClusterIP: services.kubernetesClusterIP,
      masterServiceNamespace: servicesOptions.masterServiceNamespace ?? 'default',
      kubernetesServiceNodePort: servicesOptions.kubernetesServiceNodePort || undefined,
      endpointReconcilerType: servicesOptions.endpointReconcilerType ?? 'lease',
    }),
  ];
}

/**
 * The resource layer's options: the defaults, the caller's, the serving shell's limits, and the
 * admission plugins built beside the chain because they ask the authorizers (RBAC's escalation check,
 * OwnerReferencesPermissionEnforcement) or hold whatever the plugins (`--allow-privileged=false`).
 */
function resourcesOptionsOf(
  options: ApiServerOptions,
  serving: ApiServerServingConfig,
  scheme: Scheme,
  security: () => Security | undefined,
): ResourcesOptions {
  const escalation: AdmissionPlugin[] = [];
  if (options.authorization?.modes?.includes('RBAC') === true) {
    escalation.push(rbacEscalationCheck({ authorizer: () => security()?.authorizer, rbac: () => security()?.rbac }));
  }
  const enabled = new Set(options.resources?.enableAdmissionPlugins ?? []);
  if (
    enabled.has('OwnerReferencesPermissionEnforcement') &&
    !(options.resources?.disableAdmissionPlugins ?? []).includes('OwnerReferencesPermissionEnforcement')
  ) {
    escalation.push(ownerReferencesPermissionEnforcement({ authorizer: () => security()?.authorizer, scheme }));
  }
  // `--allow-privileged=false`, Kubernetes' validation of privileged containers, whatever the plugins.
  if (options.resources?.allowPrivileged !== true) escalation.push(privilegedContainersDenied());
  return {
    ...DEFAULT_RESOURCES_OPTIONS,
    ...options.resources,
    extraAdmissionPlugins: [...(options.resources?.extraAdmissionPlugins ?? []), ...escalation],
    admissionAuthorizer: () => security()?.authorizer,
    minRequestTimeoutSeconds: serving.minRequestTimeoutSeconds,
    maxRequestBodyBytes: serving.maxRequestBodyBytes,
    serviceAccountTokensIssued: options.authentication?.serviceAccounts !== undefined,
  };
}

/**
 * The controllers the API server runs on its own objects, from post-start hooks, stopped with it:
 * the bootstrap RBAC policy, the authentication info ConfigMap, the expiry of Events, the node
 * authorizer's graph (the server is ready once it is, as Kubernetes' node authorizer waits for its informers).
 */
function startServerControllers(server: ApiServerHandle, registries: ResourceRegistries, security: Security, eventTtlMs: number | undefined): void {
  if (security.rbac !== undefined) server.health.addPostStartHook('rbac/bootstrap-roles', () => ensureBootstrapPolicy(rbacRegistries(registries)));
  const configMaps = registries.configMaps;
  if (configMaps !== undefined) {
    const logger = new Logger('AuthenticationInfo');
    const required = security.authenticationInfo;
    const controller = new AuthenticationInfoController({ configMaps, namespaces: registries.namespaces, required, log: (message) => logger.warn(message) });
    server.lifecycle.onStopped(() => controller.stop());
    server.health.addPostStartHook(AUTHENTICATION_INFO_POST_START_HOOK, () => controller.start());
  }
  const events = registries.events;
  if (events !== undefined) {
    const logger = new Logger('EventExpiry');
    const expiry = new EventExpiry({ events, ttlMs: eventTtlMs ?? 3_600_000, log: (message) => logger.warn(message) });
    server.lifecycle.onStopped(() => expiry.stop());
    server.health.addPostStartHook('start-event-expiry', () => expiry.start());
  }
  const nodeGraph = security.nodeGraph;
  if (nodeGraph !== undefined) {
    server.health.addPostStartHook('authorization/node-graph', () => nodeGraph.whenSynced());
    server.lifecycle.onStopped(() => nodeGraph.stop());
  }
}

/**
 * This server's identity Lease, written once the system namespace exists and renewed, and the
 * collector of other servers' expired ones: Kubernetes' APIServerIdentity.
 */
function startIdentityLease(
  server: ApiServerHandle,
  registries: ResourceRegistries,
  options: { durationSeconds?: number; renewIntervalSeconds?: number },
): void {
  const leases = registries.leases;
  if (leases === undefined) return;
  const logger = new Logger('ApiServerIdentity');
  const identity = new ApiServerIdentityLease({
    leases,
    namespace: SYSTEM_NAMESPACE,
    durationSeconds: options.durationSeconds ?? 3600,
    renewIntervalSeconds: options.renewIntervalSeconds ?? 10,
    log: (message) => logger.warn(message),
  });
  server.lifecycle.onStopped(() => identity.stop());
  // The system namespace comes from another post-start hook: try again for a while.
  server.health.addPostStartHook(IDENTITY_POST_START_HOOKS.lease, () => retryFor(15_000, () => identity.start()));
  server.health.addPostStartHook(IDENTITY_POST_START_HOOKS.gc, () => identity.startGarbageCollector());
}

/**
 * API Priority and Fairness' configuration: read at once (the mandatory objects stand in until the
 * store has them), then the mandatory and suggested objects written from a post-start hook.
 */
function startFlowControl(server: ApiServerHandle, flowControl: FlowControl): void {
  server.lifecycle.onStopped(() => flowControl.stop());
  void flowControl.start();
  server.health.addPostStartHook(APF_BOOTSTRAP_POST_START_HOOK, () => retryFor(30_000, () => flowControl.startEnsuring()));
}

function rbacRegistries(registries: ResourceRegistries) {
  const { clusterRoles, clusterRoleBindings, roles, roleBindings, namespaces } = registries;
  if (clusterRoles === undefined || clusterRoleBindings === undefined || roles === undefined || roleBindings === undefined || namespaces === undefined) {
    throw new Error('RBAC needs rbac.authorization.k8s.io/v1 and namespaces to be served');
  }
  return { clusterRoles, clusterRoleBindings, roles, roleBindings, namespaces };
}
