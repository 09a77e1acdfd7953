import { Type, type Static } from '@sinclair/typebox';
import { describeFields, Int32, ListAtomic, StringEnum } from '../../schema/builders';
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

// What `kubectl explain` says of each field, in this project's words.
describeFields(
  EndpointAddressSchema,
  {
    ip: 'The IP of the endpoint: never loopback, link-local or a service IP.',
    hostname: 'Its host name, when its pod sets hostname and subdomain under a headless service.',
    nodeName: 'The node it runs on.',
    targetRef: 'The object behind it, most often a pod.',
  },
  'One endpoint of a service.',
);
describeFields(
  EndpointPortSchema,
  {
    name: "The port's name, the one of the service port it serves; may be empty when there is only one.",
    port: 'The port number.',
    protocol: 'TCP, UDP or SCTP; TCP by default.',
    appProtocol: 'The application protocol: an IANA service name (http, h2c, ...), a `kubernetes.io/` name, or a name of your own with a domain prefix.',
  },
  'A port the endpoints of a subset serve.',
);
describeFields(
  EndpointSubsetSchema,
  {
    addresses: 'Addresses ready to take traffic.',
    notReadyAddresses: 'Addresses of pods not ready (starting, or terminating); traffic skips them unless the service publishes them.',
    ports: 'The ports every address of the subset serves.',
  },
  'Addresses, and the ports they all serve.',
);
describeFields(
  EndpointsSchema,
  { subsets: "The service's endpoints, grouped by the ports they serve; the endpoints controller writes them from the pods the service selects." },
  'The network endpoints behind a Service: written by the endpoints controller, or by hand for a Service without a selector. EndpointSlices say the same and scale further.',
);
