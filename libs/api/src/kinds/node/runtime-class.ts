import { Type, type Static } from '@sinclair/typebox';
import { Described, ListAtomic, StringStringMap } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';
import { ResourceListSchema } from '../core/container';
import { TolerationSchema } from '../core/pod-spec';

export const OverheadSchema = Described(
  Type.Object({ podFixed: Type.Optional(ResourceListSchema) }),
  { podFixed: 'What running a pod of the class costs beyond its containers, added to its requests for scheduling and quota.' },
  'The resources a pod of the class uses beyond its containers.',
);

export const SchedulingSchema = Described(
  Type.Object({
    nodeSelector: Type.Optional(StringStringMap()),
    tolerations: Type.Optional(ListAtomic(TolerationSchema)),
  }),
  {
    nodeSelector: "Labels a node must have to run the class's pods: merged into each pod's nodeSelector (a conflicting pod is refused).",
    tolerations: 'Tolerations added to each pod of the class, so that it may run on the nodes set apart for the class.',
  },
  'Where the pods of a class may run: the nodes that support it.',
);

export const RuntimeClassSchema = Described(
  Type.Object({
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
    handler: Type.String(),
    overhead: Type.Optional(OverheadSchema),
    scheduling: Type.Optional(SchedulingSchema),
  }),
  {
    apiVersion: 'node.k8s.io/v1.',
    kind: 'RuntimeClass.',
    metadata: "The class's name, which pods give as spec.runtimeClassName.",
    handler:
      "The container runtime's handler that runs the class's pods (CRI's runtime_handler: a runtime named in containerd's configuration). A DNS label; it cannot change.",
    overhead: 'The resources a pod of the class uses beyond its containers; set into each pod by the RuntimeClass admission plugin.',
    scheduling: "Where the class's pods may run; merged into each pod by the RuntimeClass admission plugin. Every node when absent.",
  },
  'A container runtime configuration that pods may ask for by name: the node agent runs their sandboxes with its handler.',
);
export type RuntimeClass = Static<typeof RuntimeClassSchema>;
export type RuntimeClassList = List<RuntimeClass>;
