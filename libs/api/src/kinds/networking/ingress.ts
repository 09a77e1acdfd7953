import { Type, type Static } from '@sinclair/typebox';
import { Described, Int32, ListAtomic } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';
import { TypedLocalObjectReferenceSchema } from '../core/persistent-volume-claim';

/** How a path of a rule is matched (PathType). */
export const PathTypes = ['Exact', 'ImplementationSpecific', 'Prefix'] as const;
export type PathType = (typeof PathTypes)[number];

/** The annotation that named an Ingress's class before spec.ingressClassName. */
export const INGRESS_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

export const ServiceBackendPortSchema = Described(
  Type.Object({ name: Type.Optional(Type.String()), number: Type.Optional(Int32()) }),
  {
    name: "The name of the Service's port; not with number.",
    number: "The number of the Service's port; not with name.",
  },
  'A port of a Service, by name or number.',
);

export const IngressServiceBackendSchema = Described(
  Type.Object({ name: Type.String(), port: Type.Optional(ServiceBackendPortSchema) }),
  {
    name: 'The name of the Service, in the Ingress’s namespace.',
    port: 'The port of the Service requests go to.',
  },
  'A Service an Ingress sends requests to.',
);

export const IngressBackendSchema = Described(
  Type.Object({
    service: Type.Optional(IngressServiceBackendSchema),
    resource: Type.Optional(TypedLocalObjectReferenceSchema),
  }),
  {
    service: 'The Service requests go to; not with resource.',
    resource: 'An object of the Ingress’s namespace that the controller serves requests from (a bucket, say); not with service.',
  },
  'Where requests matched by a rule (or by none) go.',
);

export const HTTPIngressPathSchema = Described(
  Type.Object({
    path: Type.Optional(Type.String()),
    pathType: Type.Optional(Type.String()),
    backend: IngressBackendSchema,
  }),
  {
    path: 'The path requests are matched against; it starts with "/" (Exact and Prefix need one).',
    pathType:
      'How the path is matched: Exact (the whole path, case-sensitive), Prefix (by elements split at "/": /foo matches /foo and /foo/bar, not /foobar) or ImplementationSpecific (the controller decides; this one matches it as Prefix).',
    backend: 'Where matched requests go.',
  },
  'A path of a rule, and where requests for it go.',
);

export const HTTPIngressRuleValueSchema = Described(
  Type.Object({ paths: ListAtomic(HTTPIngressPathSchema) }),
  { paths: 'The paths of the rule; the longest match wins.' },
  'The HTTP paths of a rule.',
);

export const IngressRuleSchema = Described(
  Type.Object({ host: Type.Optional(Type.String()), http: Type.Optional(HTTPIngressRuleValueSchema) }),
  {
    host: 'The host the rule serves: a DNS name, or a wildcard `*.example.com` matching exactly one label more. Every host when empty.',
    http: 'The paths of the host and where they go.',
  },
  'Requests for a host and where they go by path.',
);

export const IngressTLSSchema = Described(
  Type.Object({ hosts: Type.Optional(ListAtomic(Type.String())), secretName: Type.Optional(Type.String()) }),
  {
    hosts: 'The hosts the certificate serves, matched against the server name a client asks for (SNI).',
    secretName: 'The kubernetes.io/tls Secret in the Ingress’s namespace holding the certificate and key.',
  },
  'A certificate an Ingress serves TLS with, for some of its hosts.',
);

export const IngressSpecSchema = Described(
  Type.Object({
    ingressClassName: Type.Optional(Type.String()),
    defaultBackend: Type.Optional(IngressBackendSchema),
    tls: Type.Optional(ListAtomic(IngressTLSSchema)),
    rules: Type.Optional(ListAtomic(IngressRuleSchema)),
  }),
  {
    ingressClassName: 'The IngressClass whose controller serves the Ingress; the default class when left out at creation.',
    defaultBackend: 'Where requests that match no rule go.',
    tls: 'Certificates served for the hosts of the Ingress.',
    rules: 'Hosts and paths, and where their requests go.',
  },
  'What an Ingress routes.',
);

export const IngressPortStatusSchema = Described(
  Type.Object({ port: Int32(), protocol: Type.String({ default: 'TCP' }), error: Type.Optional(Type.String()) }),
  {
    port: 'The port.',
    protocol: 'Its protocol: TCP, UDP or SCTP.',
    error: 'Why the port is not served, when it is not.',
  },
  'A port an Ingress is served on, and whether it works.',
);

export const IngressLoadBalancerIngressSchema = Described(
  Type.Object({
    ip: Type.Optional(Type.String()),
    hostname: Type.Optional(Type.String()),
    ports: Type.Optional(ListAtomic(IngressPortStatusSchema)),
  }),
  {
    ip: 'An IP address the Ingress is reached at.',
    hostname: 'A DNS name the Ingress is reached at.',
    ports: 'The ports served there.',
  },
  'An address an Ingress is reached at.',
);

export const IngressLoadBalancerStatusSchema = Described(
  Type.Object({ ingress: Type.Optional(ListAtomic(IngressLoadBalancerIngressSchema)) }),
  { ingress: 'The addresses the Ingress is reached at, set by its controller.' },
  'Where an Ingress is reached.',
);

export const IngressStatusSchema = Described(
  Type.Object({ loadBalancer: Type.Optional(IngressLoadBalancerStatusSchema) }),
  { loadBalancer: 'Where the Ingress is reached.' },
  'What the controller of an Ingress reports.',
);

export const IngressSchema = Described(
  Type.Object({
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
    spec: Type.Optional(IngressSpecSchema),
    status: Type.Optional(IngressStatusSchema),
  }),
  {
    apiVersion: 'networking.k8s.io/v1.',
    kind: 'Ingress.',
    metadata: "The Ingress's name and namespace.",
    spec: 'The hosts and paths routed, and where to.',
    status: 'Where its controller serves it.',
  },
  'HTTP routes from outside the cluster to its Services, by host and path, served by the controller of its IngressClass.',
);
export type Ingress = Static<typeof IngressSchema>;
export type IngressList = List<Ingress>;
export type IngressBackend = Static<typeof IngressBackendSchema>;
export type IngressRule = Static<typeof IngressRuleSchema>;
export type HTTPIngressPath = Static<typeof HTTPIngressPathSchema>;
