import { Type, type Static } from '@sinclair/typebox';
import { describeFields, Int32, Time } from '../../schema/builders';
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

// What `kubectl explain` says of each field, in this project's words.
describeFields(
  EventSchema,
  {
    involvedObject: 'The object the event is about.',
    reason: 'Why it happened, as a short CamelCase word such as Scheduled, Pulled or BackOff.',
    message: 'What happened, in words for people.',
    source: 'The component that reported it, for reporters of this older kind; newer ones set reportingComponent.',
    'source.component': 'The reporting component, such as kubelet or default-scheduler.',
    'source.host': 'The node the component runs on.',
    firstTimestamp: 'When it was first seen.',
    lastTimestamp: 'When it was last seen.',
    count: 'How many times it has been seen.',
    type: 'Normal, or Warning for something that may need a look.',
    eventTime: 'When it first happened, to the microsecond; newer reporters set it in place of firstTimestamp.',
    series: 'For an event that keeps happening: how often, and when last; newer reporters set it in place of count.',
    'series.count': 'How many times it has happened so far.',
    'series.lastObservedTime': 'When it last happened.',
    action: 'What the reporter did, or failed to do, such as Binding or Pulling.',
    related: 'A second object it concerns, such as the node a pod was bound to.',
    reportingComponent: 'The controller that reported it, such as `kubernetes.io/kubelet`.',
    reportingInstance: 'Which instance of that controller, such as the name of its node.',
  },
  'A report of something that happened to an object, as `kubectl describe` and `kubectl events` show them. Kept for an hour by default (`--event-ttl`).',
);
