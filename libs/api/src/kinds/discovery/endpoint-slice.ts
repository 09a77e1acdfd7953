import { Type, type Static } from '@sinclair/typebox';
import { Int32, ListAtomic, ListSet, StringEnum, StringStringMap } from '../../schema/builders';
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
