import { Type, type Static } from '@sinclair/typebox';
import { Described } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';

/** The annotation that makes a class the default of Ingresses that name none. */
export const IS_DEFAULT_INGRESS_CLASS_ANNOTATION = 'ingressclass.kubernetes.io/is-default-class';

/** Where the object of a class's parameters lives. */
export const IngressClassParametersScopes = ['Cluster', 'Namespace'] as const;

export const IngressClassParametersReferenceSchema = Described(
  Type.Object({
    apiGroup: Type.Optional(Type.String()),
    kind: Type.String(),
    name: Type.String(),
    scope: Type.Optional(Type.String({ default: 'Cluster' })),
    namespace: Type.Optional(Type.String()),
  }),
  {
    apiGroup: 'The group of the object; the core group when left out.',
    kind: 'The kind of the object.',
    name: 'The name of the object.',
    scope: 'Cluster (the default) for a cluster-wide object, Namespace for one in namespace.',
    namespace: 'The namespace of the object, when scope is Namespace.',
  },
  'An object holding settings of an ingress controller.',
);

export const IngressClassSpecSchema = Described(
  Type.Object({
    controller: Type.Optional(Type.String()),
    parameters: Type.Optional(IngressClassParametersReferenceSchema),
  }),
  {
    controller: 'The controller that serves Ingresses of the class, a domain-prefixed path (svc.io/ingress for the one of this project). It cannot change.',
    parameters: 'An object holding settings for the controller.',
  },
  'Which controller serves a class, and with what settings.',
);

export const IngressClassSchema = Described(
  Type.Object({
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
    spec: Type.Optional(IngressClassSpecSchema),
  }),
  {
    apiVersion: 'networking.k8s.io/v1.',
    kind: 'IngressClass.',
    metadata: "The class's name, which Ingresses name in ingressClassName; the annotation ingressclass.kubernetes.io/is-default-class makes it the default.",
    spec: 'The controller of the class.',
  },
  'A kind of Ingress, served by one controller.',
);
export type IngressClass = Static<typeof IngressClassSchema>;
export type IngressClassList = List<IngressClass>;
