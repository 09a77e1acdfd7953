import { Logger, type LoggerService, type LogLevel } from '@nestjs/common';
import { COMPONENT_STATUS_RESOURCE, REVIEW_RESOURCES, type Scheme } from '@svc/api';
import type { Storage } from '@svc/storage';
import type { AuditOptions } from './audit/audit-runtime';
import { servingConfig, type ApiServerServingConfig } from './config';
import { CrdModule } from './crd';
import { applyRuntimeConfig, DiscoveryModule, ServedApis, type RuntimeConfig } from './discovery';
import { healthCheck } from './health/health-check';
import { OpenApiModule } from './openapi';
import { createResourceRegistries, ResourcesModule, type ResourcesOptions } from './resources';
import { serviceWriteHooks, ServicesModule, type ServicesOptions } from './services';
import { startApiServer, type ApiServerHandle } from './start-api-server';
import { ensureClientCa, issueClientCertificate } from './auth/client-certificates';
import { ensureBootstrapPolicy } from './auth/rbac/bootstrap-reconcile';
import { moveLegacyKeys } from './resources/legacy-key-layout';
import { AUTHENTICATION_INFO_POST_START_HOOK, AuthenticationInfoController } from './auth/authentication-info/authentication-info-controller';
import { buildSecurity, type AuthenticationOptions, type AuthorizationOptions, type Security } from './auth/security';
import { rbacEscalationCheck } from './auth/rbac/escalation-check';
import type { AdmissionPlugin } from './admission/admission';
import { loadWebhookAuthorizerOptions } from './auth/webhook/webhook-authorizer';
import { ownerReferencesPermissionEnforcement } from './admission/owner-references-permission';
import { privilegedContainersDenied } from './admission/privileged-containers';
import { EventExpiry } from './events/event-expiry';
import { ApiServerIdentityLease, IDENTITY_POST_START_HOOKS } from './identity/apiserver-identity';

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
  // The review APIs and component statuses are answered by handlers of their own and stored nowhere.
  const servedApis = new ServedApis(scheme, runtimeConfig, [...REVIEW_RESOURCES, COMPONENT_STATUS_RESOURCE]);
  // The escalation check is built before the authorizers it asks, which need the registries.
  const built: { security?: Security } = {};
  const rbacEnabled = options.authorization?.modes?.includes('RBAC') === true;
  const escalation: AdmissionPlugin[] = rbacEnabled
    ? [rbacEscalationCheck({ authorizer: () => built.security?.authorizer, rbac: () => built.security?.rbac })]
    : [];
  // OwnerReferencesPermissionEnforcement asks the authorizers too, so it is built here as well.
  const enabled = new Set(options.resources?.enableAdmissionPlugins ?? []);
  if (
    enabled.has('OwnerReferencesPermissionEnforcement') &&
    !(options.resources?.disableAdmissionPlugins ?? []).includes('OwnerReferencesPermissionEnforcement')
  ) {
    escalation.push(ownerReferencesPermissionEnforcement({ authorizer: () => built.security?.authorizer, scheme }));
  }
  // `--allow-privileged=false`, Kubernetes' validation of privileged containers, whatever the plugins.
  if (options.resources?.allowPrivileged !== true) escalation.push(privilegedContainersDenied());
  const resourcesOptions: ResourcesOptions = {
    ...DEFAULT_RESOURCES_OPTIONS,
    ...options.resources,
    extraAdmissionPlugins: [...(options.resources?.extraAdmissionPlugins ?? []), ...escalation],
    admissionAuthorizer: () => built.security?.authorizer,
    minRequestTimeoutSeconds: serving.minRequestTimeoutSeconds,
    maxRequestBodyBytes: serving.maxRequestBodyBytes,
    serviceAccountTokensIssued: options.authentication?.serviceAccounts !== undefined,
  };
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
  const server = await startApiServer(
    { ...serving, kubernetesServiceIP: serving.kubernetesServiceIP ?? services.kubernetesClusterIP },
    [
      ResourcesModule.forRoot({ storage, scheme, options: resourcesOptions, registries, isEnabled: (def) => servedApis.isEnabled(def) }),
      DiscoveryModule.forRoot({ scheme, servedApis }),
      OpenApiModule.forRoot({ scheme, servedApis }),
      // Custom resources of a deleted definition are deleted through the registries, finalizers honoured.
      CrdModule.forRoot({ scheme, storage, storePrefix: resourcesOptions.storePrefix, registries }),
      ServicesModule.forRoot({
        scheme,
        storage,
        storePrefix: resourcesOptions.storePrefix,
        registries,
        allocators: services.allocators,
        kubernetesClusterIP: services.kubernetesClusterIP,
        masterServiceNamespace: servicesOptions.masterServiceNamespace ?? 'default',
        kubernetesServiceNodePort: servicesOptions.kubernetesServiceNodePort || undefined,
        endpointReconcilerType: servicesOptions.endpointReconcilerType ?? 'lease',
      }),
    ],
    {
      handleSignals: input.handleSignals,
      logger: input.logger,
      stdout: input.stdout,
      audit: options.audit,
      security,
      clientCredentials,
      registries,
      componentStatuses: { storeHealth: () => storage.healthCheck(options.storeHealthcheckTimeoutMs) },
    },
  );
  if (security.rbac !== undefined) {
    server.health.addPostStartHook('rbac/bootstrap-roles', () => {
      const rbac = (resource: string) => registries.forResource('rbac.authorization.k8s.io', 'v1', resource);
      const [clusterRoles, clusterRoleBindings, roles, roleBindings] = ['clusterroles', 'clusterrolebindings', 'roles', 'rolebindings'].map(rbac);
      const namespaces = registries.forResource('', 'v1', 'namespaces');
      if (clusterRoles === undefined || clusterRoleBindings === undefined || roles === undefined || roleBindings === undefined || namespaces === undefined) {
        throw new Error('RBAC needs rbac.authorization.k8s.io/v1 and namespaces to be served');
      }
      return ensureBootstrapPolicy({ clusterRoles, clusterRoleBindings, roles, roleBindings, namespaces });
    });
  }
  const configMaps = registries.forResource('', 'v1', 'configmaps');
  if (configMaps !== undefined) {
    const logger = new Logger('AuthenticationInfo');
    const controller = new AuthenticationInfoController({
      configMaps,
      namespaces: registries.forResource('', 'v1', 'namespaces'),
      required: security.authenticationInfo,
      log: (message) => logger.warn(message),
    });
    server.lifecycle.onStopped(() => controller.stop());
    server.health.addPostStartHook(AUTHENTICATION_INFO_POST_START_HOOK, () => controller.start());
  }
  const events = registries.forResource('', 'v1', 'events');
  if (events !== undefined) {
    const logger = new Logger('EventExpiry');
    const expiry = new EventExpiry({ events, ttlMs: options.resources?.eventTtlMs ?? 3_600_000, log: (message) => logger.warn(message) });
    server.lifecycle.onStopped(() => expiry.stop());
    server.health.addPostStartHook('start-event-expiry', () => expiry.start());
  }
  const leases = registries.forResource('coordination.k8s.io', 'v1', 'leases');
  if (options.identityLease !== false && leases !== undefined) {
    const logger = new Logger('ApiServerIdentity');
    const identity = new ApiServerIdentityLease({
      leases,
      namespace: SYSTEM_NAMESPACE,
      durationSeconds: options.identityLease?.durationSeconds ?? 3600,
      renewIntervalSeconds: options.identityLease?.renewIntervalSeconds ?? 10,
      log: (message) => logger.warn(message),
    });
    server.lifecycle.onStopped(() => identity.stop());
    // The system namespace comes from another post-start hook: try again for a while.
    server.health.addPostStartHook(IDENTITY_POST_START_HOOKS.lease, () => retryFor(15_000, () => identity.start()));
    server.health.addPostStartHook(IDENTITY_POST_START_HOOKS.gc, () => identity.startGarbageCollector());
  }
  const nodeGraph = security.nodeGraph;
  if (nodeGraph !== undefined) {
    // As Kubernetes' node authorizer waits for its informers: the server is ready once the graph is.
    server.health.addPostStartHook('authorization/node-graph', () => nodeGraph.whenSynced());
    server.lifecycle.onStopped(() => nodeGraph.stop());
  }
  server.health.addLivezChecks(healthCheck('store', () => storage.healthCheck(options.storeHealthcheckTimeoutMs)));
  server.health.addReadyzChecks(healthCheck('store', () => storage.healthCheck(options.storeReadycheckTimeoutMs)));
  return server;
}
