import { Type } from '@sinclair/typebox';
import type { WatchEvent, WatchEventType } from '@svc/machinery';
import { describeFields, FreeForm, StringEnum } from '../schema/builders';

export type { WatchEvent, WatchEventType };

export const WATCH_EVENT_TYPES = ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'] as const satisfies readonly WatchEventType[];

export const WatchEventSchema = Type.Object({
  type: StringEnum(WATCH_EVENT_TYPES),
  object: FreeForm({ 'x-svc-embedded-resource': true }),
});

// What `kubectl explain` says of each field, in this project's words.
describeFields(WatchEventSchema, {
  type: 'ADDED, MODIFIED or DELETED for a change; BOOKMARK for a version reached with no change to send; ERROR when the watch failed.',
  object: 'The object after the change (as it last was, for DELETED); a Status for ERROR; for BOOKMARK only its kind, resourceVersion and annotations.',
});
