import { Type, type Static } from '@sinclair/typebox';
import { ObjectMetaSchema } from '../../meta/object-meta';
import { Described, ListMap } from '../../schema/builders';

export const ComponentConditionSchema = Described(
  Type.Object({
    type: Type.String(),
    status: Type.String(),
    message: Type.Optional(Type.String()),
    error: Type.Optional(Type.String()),
  }),
  {
    type: 'The condition: `Healthy` is the only one.',
    status: 'True when the component answered its health check, False when it did not, Unknown when it could not be asked.',
    message: 'What the component answered, when it answered.',
    error: 'Why the health check failed, when it did.',
  },
  'The outcome of one health check of a component.',
);

/** core/v1 ComponentStatus (deprecated since 1.19, still served): the health of a control-plane component. Never stored. */
export const ComponentStatusSchema = Described(
  Type.Object({
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: Type.Optional(ObjectMetaSchema),
    conditions: Type.Optional(ListMap(ComponentConditionSchema, ['type'])),
  }),
  {
    apiVersion: 'The version of the schema this object follows, `v1`.',
    kind: 'The kind of this object, `ComponentStatus`.',
    metadata: "Standard object metadata; the name is the component's.",
    conditions: 'The health of the component, asked when the object is read.',
  },
  "The health of a control-plane component (the scheduler, the controller manager, the store), checked when read. Deprecated: read the components' own /livez and /readyz instead.",
);
export type ComponentStatus = Static<typeof ComponentStatusSchema>;
