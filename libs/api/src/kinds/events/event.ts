import { Type, type Static } from '@sinclair/typebox';
import { describeFields, Int32, Time } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';
import { ObjectReferenceSchema } from '../core/object-reference';

/** events.k8s.io/v1 Event: the same objects as core/v1 Events, with the newer field names. */
export const EventsEventSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
  /** MicroTime. */
  eventTime: Type.Optional(Time()),
  series: Type.Optional(Type.Object({ count: Int32(), lastObservedTime: Time() })),
  reportingController: Type.Optional(Type.String()),
  reportingInstance: Type.Optional(Type.String()),
  action: Type.Optional(Type.String()),
  reason: Type.Optional(Type.String()),
  regarding: Type.Optional(ObjectReferenceSchema),
  related: Type.Optional(ObjectReferenceSchema),
  note: Type.Optional(Type.String()),
  type: Type.Optional(Type.String()),
  deprecatedSource: Type.Optional(Type.Object({ component: Type.Optional(Type.String()), host: Type.Optional(Type.String()) })),
  deprecatedFirstTimestamp: Type.Optional(Time()),
  deprecatedLastTimestamp: Type.Optional(Time()),
  deprecatedCount: Type.Optional(Int32()),
});
export type EventsEvent = Static<typeof EventsEventSchema>;
export type EventsEventList = List<EventsEvent>;

// What `kubectl explain` says of each field, in this project's words.
describeFields(
  EventsEventSchema,
  {
    eventTime: 'When it first happened, to the microsecond. Required.',
    series: 'For an event that keeps happening: how often, and when last. Absent for an event seen once.',
    'series.count': 'How many times it has happened so far; at least 2.',
    'series.lastObservedTime': 'When it last happened.',
    reportingController: 'The controller that reported it, as a qualified name such as `kubernetes.io/kubelet`. Required.',
    reportingInstance: 'Which instance of that controller, such as the name of its node; at most 128 characters. Required.',
    action: 'What the reporter did, or failed to do, such as Binding or Pulling; at most 128 characters. Required.',
    reason: 'Why it happened, as a short CamelCase word; at most 128 characters. Required.',
    regarding: 'The object the event is about (involvedObject of a core/v1 Event).',
    related: 'A second object it concerns, such as the node a pod was bound to.',
    note: 'What happened, in words for people; at most 1 kB (message of a core/v1 Event).',
    type: 'Normal, or Warning for something that may need a look.',
    deprecatedSource: 'The source of a core/v1 Event written by an older reporter; never set through this API.',
    'deprecatedSource.component': 'The reporting component.',
    'deprecatedSource.host': 'The node the component runs on.',
    deprecatedFirstTimestamp: 'firstTimestamp of a core/v1 Event; never set through this API.',
    deprecatedLastTimestamp: 'lastTimestamp of a core/v1 Event; never set through this API.',
    deprecatedCount: 'count of a core/v1 Event; never set through this API.',
  },
  'A report of something that happened to an object: the core/v1 Events, under the names of events.k8s.io. Kept for an hour by default (`--event-ttl`).',
);
