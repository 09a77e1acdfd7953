import { Type, type Static } from '@sinclair/typebox';
import { FreeForm, StringEnum } from '../schema/builders';

export const WATCH_EVENT_TYPES = ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'] as const;
export type WatchEventType = (typeof WATCH_EVENT_TYPES)[number];

export const WatchEventSchema = Type.Object({
  type: StringEnum(WATCH_EVENT_TYPES),
  object: FreeForm({ 'x-svc-embedded-resource': true }),
});

/** One document of a watch stream; `object` is the kind watched, or a Status for ERROR. */
export interface WatchEvent<T = Static<typeof WatchEventSchema>['object']> {
  type: WatchEventType;
  object: T;
}
