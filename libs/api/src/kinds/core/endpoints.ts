import { Type, type Static } from '@sinclair/typebox';
import { Int32, ListAtomic, StringEnum } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';
import { OPTIONAL_DNS1123_LABEL_PATTERN } from '../../meta/names';
import { Protocols } from './container';
import { ObjectReferenceSchema } from './object-reference';

export const EndpointAddressSchema = Type.Object({
  ip: Type.String({ minLength: 1 }),
  hostname: Type.Optional(Type.String()),
  nodeName: Type.Optional(Type.String()),
  targetRef: Type.Optional(ObjectReferenceSchema),
});
export type EndpointAddress = Static<typeof EndpointAddressSchema>;

export const EndpointPortSchema = Type.Object({
  name: Type.Optional(Type.String({ pattern: OPTIONAL_DNS1123_LABEL_PATTERN })),
  port: Int32({ minimum: 1, maximum: 65535 }),
  protocol: Type.Optional(StringEnum(Protocols, { default: 'TCP' })),
  appProtocol: Type.Optional(Type.String()),
});
export type EndpointPort = Static<typeof EndpointPortSchema>;

export const EndpointSubsetSchema = Type.Object({
  addresses: Type.Optional(ListAtomic(EndpointAddressSchema)),
  notReadyAddresses: Type.Optional(ListAtomic(EndpointAddressSchema)),
  ports: Type.Optional(ListAtomic(EndpointPortSchema)),
});
export type EndpointSubset = Static<typeof EndpointSubsetSchema>;

export const EndpointsSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
  subsets: Type.Optional(ListAtomic(EndpointSubsetSchema)),
});
export type Endpoints = Static<typeof EndpointsSchema>;
export type EndpointsList = List<Endpoints>;
