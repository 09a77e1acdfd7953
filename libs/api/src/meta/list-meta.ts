import { Type } from '@sinclair/typebox';
import type { ListMeta } from '@svc/machinery';
import { describeFields, Int64 } from '../schema/builders';

export type { ListMeta };

export const ListMetaSchema = Type.Object({
  resourceVersion: Type.Optional(Type.String()),
  continue: Type.Optional(Type.String()),
  remainingItemCount: Type.Optional(Int64()),
  selfLink: Type.Optional(Type.String()),
});

// What `kubectl explain` says of each field, in this project's words.
describeFields(ListMetaSchema, {
  resourceVersion: 'The version of the store the list was read at; watch from it to see every change after the list. Opaque to clients.',
  continue:
    'Set when `limit` cut the list short: send it back as the `continue` parameter to read the next page at the same version. It expires once that version is compacted away (410 Gone).',
  remainingItemCount: 'How many objects the later pages hold, when known; left out when a selector makes it unknown.',
  selfLink: 'Not filled in; kept for old clients.',
});
