import { Type, type Static } from '@sinclair/typebox';
import { describeFields, Int32, ListMap, StringEnum, Time } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';

/** The one condition kube-aggregator keeps on an APIService. */
export const API_SERVICE_AVAILABLE = 'Available';
export const APIServiceConditionStatuses = ['True', 'False', 'Unknown'] as const;

/**
 * The Available condition's reasons, as kube-aggregator's availability controllers write them
 * (`Local` for a group version this server serves itself).
 */
export const API_SERVICE_REASONS = {
  local: 'Local',
  serviceNotFound: 'ServiceNotFound',
  serviceAccessError: 'ServiceAccessError',
  servicePortError: 'ServicePortError',
  endpointsNotFound: 'EndpointsNotFound',
  endpointsAccessError: 'EndpointsAccessError',
  missingEndpoints: 'MissingEndpoints',
  failedDiscoveryCheck: 'FailedDiscoveryCheck',
  passed: 'Passed',
} as const;

/** The port a service reference without one is reached on (v1's defaulting, for compatibility). */
export const API_SERVICE_DEFAULT_PORT = 443;

/** Labels kube-aggregator's registration controllers put on the APIServices they keep. */
export const AUTOMANAGED_LABEL = 'kube-aggregator.kubernetes.io/automanaged';

export const APIServiceServiceReferenceSchema = Type.Object({
  namespace: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  port: Type.Optional(Int32({ default: API_SERVICE_DEFAULT_PORT, minimum: 1, maximum: 65535 })),
});

export const APIServiceSpecSchema = Type.Object({
  // No omitempty in Go: a local APIService says `service: null`.
  service: Type.Optional(Type.Union([APIServiceServiceReferenceSchema, Type.Null()])),
  group: Type.Optional(Type.String()),
  version: Type.Optional(Type.String()),
  insecureSkipTLSVerify: Type.Optional(Type.Boolean()),
  /** Base64 of PEM, as Go writes a byte slice. */
  caBundle: Type.Optional(Type.String({ maxLength: 1024 * 1024 })),
  groupPriorityMinimum: Int32({ default: 0 }),
  versionPriority: Int32({ default: 0 }),
});

export const APIServiceConditionSchema = Type.Object({
  type: Type.String(),
  status: StringEnum(APIServiceConditionStatuses),
  lastTransitionTime: Type.Optional(Time()),
  reason: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
});

export const APIServiceStatusSchema = Type.Object({
  conditions: Type.Optional(ListMap(APIServiceConditionSchema, ['type'])),
});

export const APIServiceSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('path-segment')),
  spec: Type.Optional(Type.Object(APIServiceSpecSchema.properties, { default: {} })),
  status: Type.Optional(APIServiceStatusSchema),
});
export type APIService = Static<typeof APIServiceSchema>;
export type APIServiceList = List<APIService>;
export type APIServiceCondition = Static<typeof APIServiceConditionSchema>;
export type APIServiceServiceReference = Static<typeof APIServiceServiceReferenceSchema>;

/** The Available condition of an APIService, if it has one. */
export function apiServiceAvailableCondition(apiService: APIService): APIServiceCondition | undefined {
  return apiService.status?.conditions?.find((c) => c.type === API_SERVICE_AVAILABLE);
}

/** Whether the APIService is served by another server (it names a service) rather than this one. */
export function isRemoteAPIService(apiService: APIService): apiService is APIService & { spec: { service: APIServiceServiceReference } } {
  return apiService.spec?.service !== undefined && apiService.spec.service !== null;
}

// What `kubectl explain` says of each field, in this project's words.
describeFields(APIServiceServiceReferenceSchema, {
  namespace: 'The namespace of the Service.',
  name: 'The name of the Service.',
  port: 'The port of the Service the API server listens on (1-65535); 443 when left out.',
});
describeFields(APIServiceSpecSchema, {
  service:
    'The Service in front of the server of this group version. Requests for it are proxied there; null means this API server serves the group version itself.',
  group: 'The API group the server serves.',
  version: 'The version of the group the server serves, for example v1beta1.',
  insecureSkipTLSVerify: "Whether the server's certificate goes unchecked. Strongly discouraged: give caBundle instead.",
  caBundle: "The CA certificates (PEM, base64 encoded) the server's serving certificate must chain to; the host's trust roots when left out.",
  groupPriorityMinimum:
    'How high the group is listed in discovery, at least: higher first (1 to 20000). The highest of its versions counts for the whole group; ties are ordered by name.',
  versionPriority:
    "How high this version is listed among its group's versions: higher first (1 to 1000); ties are ordered as Kubernetes orders versions (v2, v1, v1beta1, ...).",
});
describeFields(APIServiceConditionSchema, {
  type: 'The type of the condition: Available.',
  status: 'True, False or Unknown.',
  lastTransitionTime: 'When the status last changed.',
  reason: 'Why, in one CamelCase word (Local, Passed, ServiceNotFound, MissingEndpoints, FailedDiscoveryCheck, ...).',
  message: 'Why, in words for people.',
});
describeFields(APIServiceStatusSchema, { conditions: 'Whether the server of the group version can be reached (Available), with why.' });
(APIServiceSchema as { description?: string }).description =
  'A group version of the API and the server that serves it: this API server (local) or another, behind a Service, to which its requests are proxied. Its name is <version>.<group>.';
describeFields(APIServiceSchema, {
  spec: 'Where the server of the group version is, and how it is trusted and ordered.',
  status: 'Whether it can be reached, as the API server last checked.',
});
