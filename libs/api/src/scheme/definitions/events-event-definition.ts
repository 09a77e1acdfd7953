import { isQualifiedName, isRecord, jsonEqual } from '@svc/machinery';
import type { Event } from '../../kinds/core/event';
import { EventsEventSchema, type EventsEvent } from '../../kinds/events/event';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject, StoredAs } from '../kind-definition';
import { as, defineKind } from './define-kind';
import { eventDefinition } from './event-definition';

/** Kubernetes' limits on an Event's fields (pkg/apis/core/validation/events.go). */
const REPORTING_INSTANCE_LENGTH_LIMIT = 128;
const ACTION_LENGTH_LIMIT = 128;
const REASON_LENGTH_LIMIT = 128;
const NOTE_LENGTH_LIMIT = 1024;

/** The fields named alike in both versions, copied as they are. */
const SAME_FIELDS = ['eventTime', 'series', 'reportingInstance', 'action', 'reason', 'related', 'type'] as const;
/** events.k8s.io's name of each core/v1 field that is renamed. */
const RENAMED: ReadonlyArray<readonly [events: string, core: string]> = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];

const empty = (value: unknown): boolean =>
  value === undefined || value === null || value === '' || value === 0 || (isRecord(value) && Object.values(value).every(empty));

/** Kubernetes' Convert_v1_Event_To_core_Event: the renamed fields under their core names. */
function toCoreEvent(object: ApiObject): ApiObject {
  const from = object as Record<string, unknown>;
  const out: Record<string, unknown> = { apiVersion: 'v1', kind: 'Event', metadata: object.metadata };
  for (const [events, core] of RENAMED) if (from[events] !== undefined) out[core] = from[events];
  for (const field of SAME_FIELDS) if (from[field] !== undefined) out[field] = from[field];
  // Go's struct values of core/v1: an empty reference and source, as a core read shows them.
  out.involvedObject ??= {};
  out.source ??= {};
  out.reportingComponent ??= '';
  out.reportingInstance ??= '';
  return out;
}

/** Kubernetes' Convert_core_Event_To_v1_Event, with events.k8s.io's omitempty: unset fields left out. */
function fromCoreEvent(object: ApiObject): ApiObject {
  const from = object as Record<string, unknown>;
  const out: Record<string, unknown> = { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: object.metadata };
  for (const field of SAME_FIELDS) if (!empty(from[field]) || (field === 'series' && from.series !== undefined)) out[field] = from[field];
  for (const [events, core] of RENAMED) if (!empty(from[core])) out[events] = from[core];
  return out;
}

/** An Event as core/v1 holds it, whichever version it is read in (selectors and columns see either). */
const core = (o: ApiObject): Event => as<Event>(o.apiVersion === 'v1' ? o : toCoreEvent(o));

const storedAsCoreEvent: StoredAs = { definition: eventDefinition, toStored: toCoreEvent, fromStored: fromCoreEvent };

/** validateV1EventSeries: a series has happened at least twice, and says when last. */
function seriesErrors(event: EventsEvent): FieldError[] {
  if (event.series === undefined) return [];
  const errors: FieldError[] = [];
  if (!(event.series.count >= 2)) errors.push(fieldErrors.invalid('series.count', '', 'should be at least 2'));
  if (!event.series.lastObservedTime) errors.push(fieldErrors.required('series.lastObservedTime', ''));
  return errors;
}

/**
 * legacyValidateEvent for an event with an eventTime (every event written through this API has one):
 * the reporter, the action and the reason are required and bounded, the regarded object's namespace
 * is the event's (or the event is in default or kube-system).
 */
function reporterErrors(event: EventsEvent): FieldError[] {
  const errors: FieldError[] = [];
  const namespace = event.metadata?.namespace ?? '';
  if (!event.regarding?.namespace && namespace !== 'default' && namespace !== 'kube-system' && namespace !== 'svc-system') {
    errors.push(fieldErrors.invalid('involvedObject.namespace', event.regarding?.namespace ?? '', 'does not match event.namespace'));
  }
  const controller = event.reportingController ?? '';
  if (controller === '') errors.push(fieldErrors.required('reportingController', ''));
  for (const msg of isQualifiedName(controller)) errors.push(fieldErrors.invalid('reportingController', controller, msg));
  const instance = event.reportingInstance ?? '';
  if (instance === '') errors.push(fieldErrors.required('reportingInstance', ''));
  if (instance.length > REPORTING_INSTANCE_LENGTH_LIMIT)
    errors.push(fieldErrors.invalid('reportingInstance', '', `can have at most ${REPORTING_INSTANCE_LENGTH_LIMIT} characters`));
  const action = event.action ?? '';
  if (action === '') errors.push(fieldErrors.required('action', ''));
  if (action.length > ACTION_LENGTH_LIMIT) errors.push(fieldErrors.invalid('action', '', `can have at most ${ACTION_LENGTH_LIMIT} characters`));
  const reason = event.reason ?? '';
  if (reason === '') errors.push(fieldErrors.required('reason', ''));
  if (reason.length > REASON_LENGTH_LIMIT) errors.push(fieldErrors.invalid('reason', '', `can have at most ${REASON_LENGTH_LIMIT} characters`));
  if ((event.note ?? '').length > NOTE_LENGTH_LIMIT) errors.push(fieldErrors.invalid('message', '', `can have at most ${NOTE_LENGTH_LIMIT} characters`));
  return errors;
}

/** ValidateEventCreate through events.k8s.io/v1: the strict rules, on top of the legacy ones. */
function validateCreate(event: EventsEvent): FieldError[] {
  const errors = [...reporterErrors(event), ...seriesErrors(event)];
  if (!event.eventTime) errors.push(fieldErrors.required('eventTime', ''));
  if (event.type !== 'Normal' && event.type !== 'Warning') errors.push(fieldErrors.invalid('type', '', `has invalid value: ${event.type ?? ''}`));
  if (event.deprecatedFirstTimestamp) errors.push(fieldErrors.invalid('deprecatedFirstTimestamp', '', 'needs to be unset'));
  if (event.deprecatedLastTimestamp) errors.push(fieldErrors.invalid('deprecatedLastTimestamp', '', 'needs to be unset'));
  if (event.deprecatedCount) errors.push(fieldErrors.invalid('deprecatedCount', '', 'needs to be unset'));
  if (event.deprecatedSource?.component || event.deprecatedSource?.host) errors.push(fieldErrors.invalid('deprecatedSource', '', 'needs to be unset'));
  return errors;
}

/** The instant an eventTime names, to the microsecond (Kubernetes tolerates finer changes). */
const micros = (time: string | undefined): string => {
  if (!time) return '';
  const match = /^(.*?)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(time);
  return match ? `${Date.parse(`${match[1]}${match[3]}`)}.${(match[2] ?? '').padEnd(6, '0').slice(0, 6)}` : time;
};

/**
 * ValidateEventUpdate through events.k8s.io/v1: a changed series is checked, and what the event is
 * about and says stays (the errors name the fields as core/v1 does, as Kubernetes' do).
 */
function validateUpdate(object: ApiObject, current: ApiObject): FieldError[] {
  const next = as<EventsEvent>(object);
  const old = as<EventsEvent>(current);
  const errors: FieldError[] = [];
  if (next.eventTime) errors.push(...reporterErrors(next));
  if (!jsonEqual(next.series, old.series)) errors.push(...seriesErrors(next));
  const core = as<Event>(toCoreEvent(object));
  const oldCore = as<Event>(toCoreEvent(current));
  const immutable = ['involvedObject', 'reason', 'message', 'source', 'firstTimestamp', 'lastTimestamp', 'count', 'type'] as const;
  for (const field of immutable) {
    if (!jsonEqual(core[field] ?? null, oldCore[field] ?? null)) errors.push(fieldErrors.invalid(field, core[field] ?? null, 'field is immutable'));
  }
  if (micros(next.eventTime) !== micros(old.eventTime)) errors.push(fieldErrors.invalid('eventTime', next.eventTime ?? null, 'field is immutable'));
  return errors;
}

/** Kubernetes' events.k8s.io/v1 Event: the core/v1 Events, stored once, under the newer names. */
export const eventsEventDefinition = defineKind({
  group: 'events.svc.io',
  version: 'v1',
  kind: 'Event',
  resource: 'events',
  namespaced: true,
  shortNames: ['ev'],
  schema: EventsEventSchema,
  allowCreateOnUpdate: true,
  storedAs: storedAsCoreEvent,
  fieldSelectors: {
    reason: (o) => core(o).reason ?? '',
    type: (o) => core(o).type ?? '',
    reportingController: (o) => core(o).reportingComponent ?? '',
    'regarding.kind': (o) => core(o).involvedObject?.kind ?? '',
    'regarding.namespace': (o) => core(o).involvedObject?.namespace ?? '',
    'regarding.name': (o) => core(o).involvedObject?.name ?? '',
    'regarding.uid': (o) => core(o).involvedObject?.uid ?? '',
  },
  // kubectl's columns of an Event are the same through either API: Kubernetes prints the stored kind.
  columns: (eventDefinition.columns ?? []).map((c) => ({ ...c, cell: (o, context) => c.cell(core(o), context) })),
  validationRules: [(o, current) => (current === undefined ? validateCreate(as<EventsEvent>(o)) : [])],
  strategy: { validateUpdate },
});
