import { Type, type Static } from '@sinclair/typebox';
import { MAX_CLIENT_IP_AFFINITY_SECONDS } from '@svc/machinery';
import { Int32, ListAtomic, ListMap, StringEnum } from '../../schema/builders';
import { ConditionSchema } from '../../meta/condition';
import { objectMetaSchema } from '../../meta/object-meta';
import { DNS1123_LABEL_MAX_LENGTH, DNS1123_LABEL_PATTERN } from '../../meta/names';
import { SelectorLabelsSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';
import { PortNumberOrName, Protocols } from './container';

/** Sorted, as Kubernetes lists them when a type is not supported. */
export const ServiceTypes = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'] as const;
export type ServiceType = (typeof ServiceTypes)[number];
export const TrafficPolicies = ['Cluster', 'Local'] as const;

export const ServicePortSchema = Type.Object({
  name: Type.Optional(Type.String({ pattern: DNS1123_LABEL_PATTERN, maxLength: DNS1123_LABEL_MAX_LENGTH })),
  protocol: Type.Optional(StringEnum(Protocols, { default: 'TCP' })),
  appProtocol: Type.Optional(Type.String()),
  port: Int32({ minimum: 1, maximum: 65535 }),
  /** Defaults to `port` (a hook: a schema default cannot refer to a sibling). */
  targetPort: Type.Optional(PortNumberOrName()),
  // 0 asks for one to be allocated; the allocator refuses a port outside the node port range.
  nodePort: Type.Optional(Int32()),
});
export type ServicePort = Static<typeof ServicePortSchema>;

export const ServiceSpecSchema = Type.Object({
  ports: Type.Optional(ListMap(ServicePortSchema, ['port', 'protocol'])),
  selector: Type.Optional(SelectorLabelsSchema),
  clusterIP: Type.Optional(Type.String()),
  clusterIPs: Type.Optional(ListAtomic(Type.String(), { maxItems: 2 })),
  type: Type.Optional(StringEnum(ServiceTypes, { default: 'ClusterIP' })),
  externalIPs: Type.Optional(ListAtomic(Type.String())),
  sessionAffinity: Type.Optional(StringEnum(['ClientIP', 'None'] as const, { default: 'None' })),
  loadBalancerIP: Type.Optional(Type.String()),
  loadBalancerSourceRanges: Type.Optional(ListAtomic(Type.String())),
  externalName: Type.Optional(Type.String()),
  externalTrafficPolicy: Type.Optional(StringEnum(TrafficPolicies)),
  healthCheckNodePort: Type.Optional(Int32()),
  publishNotReadyAddresses: Type.Optional(Type.Boolean()),
  sessionAffinityConfig: Type.Optional(
    Type.Object({
      clientIP: Type.Optional(Type.Object({ timeoutSeconds: Type.Optional(Int32({ minimum: 1, maximum: MAX_CLIENT_IP_AFFINITY_SECONDS })) })),
    }),
  ),
  ipFamilies: Type.Optional(ListAtomic(StringEnum(['IPv4', 'IPv6'] as const), { maxItems: 2 })),
  ipFamilyPolicy: Type.Optional(StringEnum(['PreferDualStack', 'RequireDualStack', 'SingleStack'] as const)),
  allocateLoadBalancerNodePorts: Type.Optional(Type.Boolean()),
  loadBalancerClass: Type.Optional(Type.String()),
  internalTrafficPolicy: Type.Optional(StringEnum(TrafficPolicies)),
  trafficDistribution: Type.Optional(Type.String()),
});
export type ServiceSpec = Static<typeof ServiceSpecSchema>;

export const LoadBalancerIngressSchema = Type.Object({
  ip: Type.Optional(Type.String()),
  hostname: Type.Optional(Type.String()),
  ipMode: Type.Optional(StringEnum(['VIP', 'Proxy'] as const)),
  ports: Type.Optional(ListAtomic(Type.Object({ port: Int32(), protocol: StringEnum(Protocols, { default: 'TCP' }), error: Type.Optional(Type.String()) }))),
});

export const ServiceStatusSchema = Type.Object({
  loadBalancer: Type.Optional(Type.Object({ ingress: Type.Optional(ListAtomic(LoadBalancerIngressSchema)) })),
  conditions: Type.Optional(ListMap(ConditionSchema, ['type'])),
});

export const ServiceSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1035-label')),
  spec: Type.Optional(Type.Object(ServiceSpecSchema.properties, { default: {} })),
  status: Type.Optional(ServiceStatusSchema),
});
export type Service = Static<typeof ServiceSchema>;
export type ServiceList = List<Service>;
