import { Type, type Static } from '@sinclair/typebox';
import { describeFields, Int32, ListAtomic, ListSet, StringEnum, StringStringMap } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';
import { OPTIONAL_DNS1123_LABEL_PATTERN } from '../../meta/names';
import { Protocols } from '../core/container';
import { ObjectReferenceSchema } from '../core/object-reference';

/** Sorted, as Kubernetes lists them when an address type is not supported. */
export const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'] as const;
export type AddressType = (typeof ADDRESS_TYPES)[number];

export const EndpointConditionsSchema = Type.Object({
  ready: Type.Optional(Type.Boolean()),
  serving: Type.Optional(Type.Boolean()),
  terminating: Type.Optional(Type.Boolean()),
});

export const EndpointSliceEndpointSchema = Type.Object({
  addresses: ListSet(Type.String(), { minItems: 1, maxItems: 100 }),
  // A struct value in Go: always serialized, `{}` when empty.
  conditions: Type.Optional(Type.Object(EndpointConditionsSchema.properties, { default: {} })),
  hostname: Type.Optional(Type.String()),
  targetRef: Type.Optional(ObjectReferenceSchema),
  deprecatedTopology: Type.Optional(StringStringMap()),
  nodeName: Type.Optional(Type.String()),
  zone: Type.Optional(Type.String()),
  hints: Type.Optional(
    Type.Object({
      forZones: Type.Optional(ListAtomic(Type.Object({ name: Type.String() }))),
      forNodes: Type.Optional(ListAtomic(Type.Object({ name: Type.String() }))),
    }),
  ),
});
export type EndpointSliceEndpoint = Static<typeof EndpointSliceEndpointSchema>;

export const EndpointSlicePortSchema = Type.Object({
  // SetDefaults_EndpointPort (pkg/apis/discovery/v1/defaults.go): an unnamed port is named "".
  name: Type.Optional(Type.String({ default: '', pattern: OPTIONAL_DNS1123_LABEL_PATTERN })),
  protocol: Type.Optional(StringEnum(Protocols, { default: 'TCP' })),
  port: Type.Optional(Int32({ minimum: 1, maximum: 65535 })),
  appProtocol: Type.Optional(Type.String()),
});
export type EndpointSlicePort = Static<typeof EndpointSlicePortSchema>;

export const EndpointSliceSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
  addressType: StringEnum(ADDRESS_TYPES),
  endpoints: Type.Optional(ListAtomic(EndpointSliceEndpointSchema, { maxItems: 1000 })),
  ports: Type.Optional(ListAtomic(EndpointSlicePortSchema, { maxItems: 100 })),
});
export type EndpointSlice = Static<typeof EndpointSliceSchema>;
export type EndpointSliceList = List<EndpointSlice>;

// What `kubectl explain` says of each field, in this project's words.
describeFields(EndpointConditionsSchema, {
  ready: 'Whether the endpoint should take new traffic: serving and not terminating. Left out, it counts as ready.',
  serving: 'Whether it passes its readiness checks, terminating or not.',
  terminating: 'Whether it is going away.',
});
describeFields(EndpointSliceSchema, {
  addressType: 'The type of every address of the slice: IPv4, IPv6 or FQDN. It cannot change.',
  endpoints: 'The endpoints, at most 1000.',
  'endpoints.addresses': "The endpoint's addresses, of the slice's addressType, 1 to 100; they are interchangeable, and most readers use the first.",
  'endpoints.conditions': 'The state of the endpoint.',
  'endpoints.hostname': "The endpoint's host name, for DNS.",
  'endpoints.targetRef': 'The object behind the endpoint, most often a pod.',
  'endpoints.deprecatedTopology':
    'Deprecated topology labels from discovery/v1beta1, not written through v1 (a write is ignored); nodeName and zone say the same.',
  'endpoints.nodeName': 'The node the endpoint runs on.',
  'endpoints.zone': 'The zone the endpoint is in.',
  'endpoints.hints': 'Hints to service proxies on which clients the endpoint should serve.',
  'endpoints.hints.forZones': 'The zones whose clients it should serve, for topology aware routing.',
  'endpoints.hints.forZones.name': 'The name of a zone.',
  'endpoints.hints.forNodes': 'The nodes whose clients it should serve.',
  'endpoints.hints.forNodes.name': 'The name of a node.',
  ports: 'The ports every endpoint of the slice serves, at most 100. None means no port is known; a port without a number means every port.',
  'ports.name': 'The name of the port, that of the service port; empty when there is only one.',
  'ports.protocol': 'TCP, UDP or SCTP; TCP by default.',
  'ports.port': 'The port number; left out, every port.',
  'ports.appProtocol': 'The application protocol: an IANA service name, a `kubernetes.io/` name, or a name of your own with a domain prefix.',
});
(EndpointSliceSchema as { description?: string }).description =
  'A share of the endpoints of a Service, all of one address type, written by the EndpointSlice controller (the label kubernetes.io/service-name names the Service). Service proxies and DNS read them.';
