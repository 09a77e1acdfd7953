import { Type, type Static } from '@sinclair/typebox';
import { MAX_CLIENT_IP_AFFINITY_SECONDS } from '@svc/machinery';
import { describeFields, Int32, ListAtomic, ListMap, StringEnum } from '../../schema/builders';
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

// What `kubectl explain` says of each field, in this project's words.
describeFields(
  ServicePortSchema,
  {
    name: 'The name of the port, a DNS label unique in the service; needed when there are several. Endpoints refer to the port by it.',
    protocol: 'TCP, UDP or SCTP; TCP by default.',
    appProtocol:
      'The application protocol, a hint for proxies and load balancers: an IANA service name, a `kubernetes.io/` name (h2c, ws, wss) or a name of your own with a domain prefix.',
    port: 'The port the service answers on.',
    targetPort:
      "The pods' port the traffic goes to: a number, or the name of a container port (which may be a different number in each pod). The same as port by default.",
    nodePort:
      'For NodePort and LoadBalancer services: the port opened on every node, from the node port range (30000-32767 by default); one is allocated when left out.',
  },
  "A port a Service answers on, and the pods' port it sends to.",
);
describeFields(
  ServiceSpecSchema,
  {
    ports: 'The ports the service answers on.',
    selector: 'The labels of the pods traffic goes to. Without a selector, its endpoints are written by hand. Not used by ExternalName services.',
    clusterIP:
      'The virtual IP of the service, allocated from the service range when left out. `None` makes a headless service, whose DNS names lead to the pods themselves. It cannot change, save to or from type ExternalName.',
    clusterIPs: 'The IPs of the service, at most one per address family; the first is clusterIP. They cannot change, save by adding or removing the second.',
    type: 'ClusterIP (a virtual IP inside the cluster, the default), NodePort (that, and a port on every node), LoadBalancer (those, and a load balancer outside) or ExternalName (a DNS alias of externalName, with no IP).',
    externalIPs: 'IPs the cluster does not manage, for which nodes also take the traffic of the service.',
    sessionAffinity: 'ClientIP sends every connection of a client IP to the same endpoint; None, the default, spreads them.',
    loadBalancerIP:
      'Deprecated: the IP a LoadBalancer service asks its provider for, where the provider supports it; providers use annotations of their own now.',
    loadBalancerSourceRanges: 'For LoadBalancer services: the client address ranges (CIDRs) let through, where the provider supports it.',
    externalName: 'For ExternalName services: the DNS name the name of the service is an alias (CNAME) of.',
    externalTrafficPolicy:
      'How traffic from outside (node ports, load balancers) is routed: Cluster (the default) to any endpoint, hiding the client address; Local only to endpoints on the node it reached, keeping the client address.',
    healthCheckNodePort:
      'For LoadBalancer services with externalTrafficPolicy Local: the node port a load balancer checks to learn which nodes have endpoints; allocated when left out.',
    publishNotReadyAddresses:
      'Whether the endpoints of pods that are not ready are published all the same (in DNS, above all), as peers that must find each other need.',
    sessionAffinityConfig: 'Settings of session affinity.',
    'sessionAffinityConfig.clientIP': 'Settings of ClientIP affinity.',
    'sessionAffinityConfig.clientIP.timeoutSeconds':
      "How long a client's affinity lasts after its last connection: 1 to 86400 seconds, 10800 (three hours) by default.",
    ipFamilies:
      "The address families of the service's IPs (IPv4, IPv6), in the order of clusterIPs; chosen from the cluster's when left out. Only the second may be added or removed.",
    ipFamilyPolicy:
      'SingleStack (one family, the default), PreferDualStack (two where the cluster has two) or RequireDualStack (two, or the service is refused).',
    allocateLoadBalancerNodePorts:
      'For LoadBalancer services: whether node ports are allocated; true by default. False suits load balancers that reach the pods directly.',
    loadBalancerClass: "Which load balancer implementation handles a LoadBalancer service; the cloud provider's when left out. It cannot change.",
    internalTrafficPolicy:
      "How traffic from inside the cluster is routed: Cluster (the default) to any endpoint; Local only to endpoints on the sender's node, dropped when there are none.",
    trafficDistribution: 'A preference for where traffic goes: PreferClose favours endpoints near the client, in its zone.',
  },
  'What a Service exposes and how: its ports, the pods behind it and its type.',
);
describeFields(
  LoadBalancerIngressSchema,
  {
    ip: 'The IP of the load balancer.',
    hostname: 'The DNS name of the load balancer.',
    ipMode: 'How traffic for ip reaches the pods: VIP (the nodes route it as if sent to the service) or Proxy (the load balancer forwards it to the nodes).',
    ports: 'The ports of the load balancer, with their state.',
    'ports.port': 'The port number.',
    'ports.protocol': 'TCP, UDP or SCTP.',
    'ports.error': 'Why the port failed, as a CamelCase word, when it did.',
  },
  'One address of the load balancer in front of a Service.',
);
describeFields(
  ServiceStatusSchema,
  {
    loadBalancer: 'The load balancer of a LoadBalancer service, once it is set up.',
    'loadBalancer.ingress': 'Its addresses.',
    conditions: 'The state of the service, as conditions.',
  },
  "What is known of a Service's load balancer.",
);
(ServiceSchema as { description?: string }).description =
  'A stable name and virtual address in front of a changing set of pods, spreading traffic over them. This server allocates the addresses and ports and keeps the endpoints; the service proxy of each node (svc-proxy) routes cluster IPs, node ports and external IPs to them. Nothing provisions load balancers.';
