import { Type } from '@sinclair/typebox';
import type { JsonObject, ManagedFieldsEntry } from '@svc/machinery';
import { describeFields, FreeForm, StringEnum, Time } from '../schema/builders';

export type { ManagedFieldsEntry };

export const ManagedFieldsEntrySchema = Type.Object({
  manager: Type.Optional(Type.String()),
  operation: Type.Optional(StringEnum(['Apply', 'Update'] as const)),
  apiVersion: Type.Optional(Type.String()),
  time: Type.Optional(Time()),
  fieldsType: Type.Optional(StringEnum(['FieldsV1'] as const)),
  /** Tree of `f:<field>`, `k:<keys>`, `v:<value>` and `i:<index>` nodes; leaves are empty objects. */
  fieldsV1: Type.Optional(Type.Unsafe<JsonObject>(FreeForm())),
  subresource: Type.Optional(Type.String()),
});

// What `kubectl explain` says of each field, in this project's words.
describeFields(
  ManagedFieldsEntrySchema,
  {
    manager: 'The name of the client or controller that set the fields: its fieldManager, or one made from its user agent.',
    operation: 'Apply for fields set by server-side apply, Update for those set by a create, update or patch.',
    apiVersion: 'The group and version the object was written in when these fields were set.',
    time: 'When the manager last added, changed or removed one of these fields.',
    fieldsType: 'The format of the field set; FieldsV1 is the only one.',
    fieldsV1:
      'The fields the manager owns, as a tree of `f:<name>` (a field), `k:<keys>` (a list item by its keys), `v:<value>` (a set item) and `i:<index>` entries.',
    subresource: 'The subresource the fields were written through, such as `status` or `scale`; empty for the object itself.',
  },
  'The fields one manager owns in an object, and how it set them.',
);
