import { Type, type Static } from '@sinclair/typebox';
import { describeFields } from '../../schema/builders';
import { ObjectMetaSchema } from '../../meta/object-meta';
import { ObjectReferenceSchema } from './object-reference';

/**
 * core/v1 Binding: the body of a POST to a pod's `binding` subresource, which ties the pod to the node
 * `target` names (Kubernetes' scheduler binds this way). Never stored.
 */
export const BindingSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(ObjectMetaSchema),
  target: ObjectReferenceSchema,
});
export type Binding = Static<typeof BindingSchema>;

export const BINDING_GVK = { group: '', version: 'v1', kind: 'Binding' } as const;

// What `kubectl explain` says of each field, in this project's words.
describeFields(
  BindingSchema,
  { target: 'The node the pod is to run on: kind Node and its name.' },
  "Binds a pod to a node: the body of a POST to the pod's binding subresource, as a scheduler sends it. Never stored.",
);
