import { Type } from '@sinclair/typebox';
import type { WatchEvent, WatchEventType } from '@svc/machinery';
import { FreeForm, StringEnum } from '../schema/builders';

export type { WatchEvent, WatchEventType };

export const WATCH_EVENT_TYPES = ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'] as const satisfies readonly WatchEventType[];

export const WatchEventSchema = Type.Object({
  type: StringEnum(WATCH_EVENT_TYPES),
  object: FreeForm({ 'x-svc-embedded-resource': true }),
});
