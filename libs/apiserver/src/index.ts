// The API server library: createApiServer wires it whole; the serving shell's surface is for the parts installed on it.
export { createApiServer, DEFAULT_RESOURCES_OPTIONS } from './create-api-server';
export { admissionPluginSupport, unimplementedAdmissionPlugins } from './admission/build-admission';
export type { ApiServerOptions, CreateApiServerInput } from './create-api-server';
export type { AggregatorOptions } from './aggregator/aggregator';
export type { RuntimeConfig } from './discovery';
export type { ResourcesOptions } from './registry/create-registries';
export type { ServicesOptions } from './services';
export { ensureServingCertificates, SERVING_CERT_FILE, SERVING_KEY_FILE, type ServingCertificates } from './serving/serving-certificates';
export { startApiServer } from './start-api-server';
export type { ApiServerHandle, StartApiServerOptions } from './start-api-server';
export { defaultVersionInfo, servingConfig, DEFAULT_MAX_REQUEST_BODY_BYTES, REFERENCE_RELEASE } from './config';
export type { ApiServerServingConfig, ServerVersionInfo, TlsVersionName } from './config';
export type { ServerPart, ServingCore } from './serving/serving-core';
export { Mux, decodeParam } from './serving/mux';
export type { MuxRoute, RouteHandler, RouteParams } from './serving/mux';
export { ResponseWriter } from './serving/response-writer';
export { HealthRegistry, SHUTDOWN_CHECK_NAME } from './health/health-registry';
export { healthCheck } from './health/health-check';
export type { HealthCheck, HealthEndpoint, HealthReport } from './health/health-check';
export { MetricsService, longRunningLabelsOf } from './metrics/metrics.service';
export type { DeprecatedApiLabels, LongRunningLabels, RequestObservation } from './metrics/metrics.service';
export { ServerLifecycle } from './lifecycle/server-lifecycle';
export type { LifecyclePhase } from './lifecycle/server-lifecycle';
export { requestInfo } from './request/request-info';
export type { RequestInfo, ResourceVerb } from './request/request-info';
export { isLongRunning, isMutating } from './request/request-classification';
export { requestContext, requestUrl } from './request/request-context';
export type { RequestContext } from './request/request-context';
export { readBody } from './request/read-body';
export { watchTimeoutSeconds } from './request/request-timeout';
export * from './status/status';
export { writeStatus } from './status/write-status';
export * from '@svc/machinery';
export { loadAuditPolicy, parseAuditPolicy, evaluatePolicy } from './audit/audit-policy';
export type { AuditPolicy, AuditPolicyRule, AuditDecision } from './audit/audit-policy';
export type { AuditOptions, AuditBackendSettings, AuditMode } from './audit/audit-runtime';
export { AUDIT_EVENT_VERSIONS } from './audit/audit-event';
export type { AuditEvent, AuditLevel, AuditStage } from './audit/audit-event';
export { ADMIN_USER } from './create-api-server';
export type { AuthenticationOptions, AuthorizationOptions, AuthorizationMode } from './auth/security';
export type { OidcOptions } from './auth/oidc-authenticator';
export type { RequestHeaderOptions } from '@svc/machinery';
export type { TokenWebhookOptions } from './auth/token-webhook-authenticator';
export { CLIENT_CA_CERT_FILE, CLIENT_CA_KEY_FILE, ensureClientCa, issueClientCertificate, writeIdentityConnectionFile } from './auth/client-certificates';
export { ApiServerIdentityLease, apiServerIdentity, IDENTITY_LEASE_LABEL } from './identity/apiserver-identity';
export type { CertificateAuthority, IssuedCertificate } from './auth/client-certificates';
export {
  BOOTSTRAP_CLUSTER_ROLES,
  BOOTSTRAP_CLUSTER_ROLE_BINDINGS,
  bootstrapClusterRoleBindingObjects,
  bootstrapClusterRoleObjects,
  BOOTSTRAP_ROLES,
  BOOTSTRAP_ROLE_BINDINGS,
  bootstrapRoleBindingObjects,
  bootstrapRoleObjects,
} from './auth/rbac/bootstrap-policy';
export type { ClusterAuthenticationInfo, RequestHeaderAuthenticationInfo } from './auth/authentication-info/cluster-authentication-info';
// The authorizers themselves, for embedding them and for measuring them apart from HTTP.
export { UnionAuthorizer, privilegedGroups } from './auth/authorizer';
export type { AuthorizationAttributes, AuthorizationResult, Authorizer, Decision } from './auth/authorizer';
export { RbacAuthorizer } from './auth/rbac/rbac-authorizer';
export type { PolicyObjects, PolicySource } from './auth/rbac/rbac-authorizer';
export { NodeAuthorizer } from './auth/node/node-authorizer';
export { NodeGraph } from './auth/node/node-graph';
export { WebhookAuthorizer } from './auth/webhook/webhook-authorizer';
export type { WebhookAuthorizerOptions, WebhookModeOptions } from './auth/webhook/webhook-authorizer';
export { CONSOLE_PATH, CONSOLE_NONCE_PLACEHOLDER, ConsoleFiles, consoleSecurityHeaders } from './console/console-files';
export { BEARER_PROTOCOL_PREFIX, WebSocketProtocolAuthenticator } from './auth/websocket-protocol-authenticator';
