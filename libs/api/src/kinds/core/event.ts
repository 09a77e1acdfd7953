import { Type, type Static } from '@sinclair/typebox';
import { Int32, Time } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';
import { ObjectReferenceSchema } from './object-reference';

/** core/v1 Event. */
export const EventSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
  involvedObject: ObjectReferenceSchema,
  reason: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
  // Go's struct value and fields without omitempty: `source: {}`, `reportingComponent: ""`, `reportingInstance: ""` always.
  source: Type.Optional(Type.Object({ component: Type.Optional(Type.String()), host: Type.Optional(Type.String()) }, { default: {} })),
  firstTimestamp: Type.Optional(Time()),
  lastTimestamp: Type.Optional(Time()),
  count: Type.Optional(Int32()),
  type: Type.Optional(Type.String()),
  /** MicroTime. */
  eventTime: Type.Optional(Time()),
  series: Type.Optional(Type.Object({ count: Type.Optional(Int32()), lastObservedTime: Type.Optional(Time()) })),
  action: Type.Optional(Type.String()),
  related: Type.Optional(ObjectReferenceSchema),
  reportingComponent: Type.Optional(Type.String({ default: '' })),
  reportingInstance: Type.Optional(Type.String({ default: '' })),
});
export type Event = Static<typeof EventSchema>;
export type EventList = List<Event>;
