import { EventSchema, type Event } from '../../kinds/core/event';
import { timestampSince } from '../human-duration';
import { column } from '../table';
import { as, defineKind } from './define-kind';

function seen(e: Event, now: Date): { first: string; last: string; count: number } {
  const first = e.firstTimestamp ? timestampSince(e.firstTimestamp, now) : timestampSince(e.eventTime, now);
  let last = e.lastTimestamp ? timestampSince(e.lastTimestamp, now) : first;
  let count = e.count ?? 0;
  if (e.series) {
    last = timestampSince(e.series.lastObservedTime, now);
    count = e.series.count ?? 0;
  } else if (count === 0) {
    count = 1;
  }
  return { first, last, count };
}

function source(e: Event): string {
  const component = e.source?.component || e.reportingComponent || '';
  const host = e.source?.host || e.reportingInstance || '';
  return host ? `${component}, ${host}` : component;
}

export const eventDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'Event',
  resource: 'events',
  namespaced: true,
  shortNames: ['ev'],
  schema: EventSchema,
  allowCreateOnUpdate: true,
  fieldSelectors: {
    'involvedObject.kind': (o) => as<Event>(o).involvedObject?.kind ?? '',
    'involvedObject.namespace': (o) => as<Event>(o).involvedObject?.namespace ?? '',
    'involvedObject.name': (o) => as<Event>(o).involvedObject?.name ?? '',
    'involvedObject.uid': (o) => as<Event>(o).involvedObject?.uid ?? '',
    'involvedObject.apiVersion': (o) => as<Event>(o).involvedObject?.apiVersion ?? '',
    'involvedObject.resourceVersion': (o) => as<Event>(o).involvedObject?.resourceVersion ?? '',
    'involvedObject.fieldPath': (o) => as<Event>(o).involvedObject?.fieldPath ?? '',
    reason: (o) => as<Event>(o).reason ?? '',
    reportingComponent: (o) => as<Event>(o).reportingComponent ?? '',
    source: (o) => as<Event>(o).source?.component ?? '',
    type: (o) => as<Event>(o).type ?? '',
  },
  columns: [
    column('Last Seen', 'string', (o, { now }) => seen(as<Event>(o), now).last, {
      description: 'The time at which the most recent occurrence of this event was recorded.',
    }),
    column('Type', 'string', (o) => as<Event>(o).type ?? '', { description: 'Type of this event (Normal, Warning).' }),
    column('Reason', 'string', (o) => as<Event>(o).reason ?? '', { description: 'Short, machine understandable reason for the transition.' }),
    column(
      'Object',
      'string',
      (o) => {
        const ref = as<Event>(o).involvedObject ?? {};
        const kind = (ref.kind ?? '').toLowerCase();
        return ref.name ? `${kind}/${ref.name}` : kind;
      },
      { description: 'The object that this event is about.' },
    ),
    column('Subobject', 'string', (o) => as<Event>(o).involvedObject?.fieldPath ?? '', { priority: 1, description: 'Part of the object the event is about.' }),
    column('Source', 'string', (o) => source(as<Event>(o)), { priority: 1, description: 'The component reporting this event.' }),
    column('Message', 'string', (o) => (as<Event>(o).message ?? '').trim(), { description: 'A human-readable description of the status of this operation.' }),
    column('First Seen', 'string', (o, { now }) => seen(as<Event>(o), now).first, {
      priority: 1,
      description: 'The time at which the event was first recorded.',
    }),
    column('Count', 'string', (o, { now }) => seen(as<Event>(o), now).count, { priority: 1, description: 'The number of times this event has occurred.' }),
    column('Name', 'string', (o) => o.metadata?.name ?? '', { priority: 1, format: 'name', description: 'Name of the event.' }),
  ],
});
