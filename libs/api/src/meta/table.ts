import { Type } from '@sinclair/typebox';
import type { Table, TableColumnDefinition, TableRow } from '@svc/machinery';
import { describeFields, FreeForm, Int32, ListAtomic } from '../schema/builders';
import { ListMetaSchema } from './list-meta';

export type { Table, TableColumnDefinition, TableRow };

export const TABLE_API_VERSION = 'meta.svc.io/v1';

export const TableColumnDefinitionSchema = Type.Object({
  name: Type.String(),
  /** OpenAPI type: string, integer, number, boolean, date. */
  type: Type.String(),
  format: Type.String(),
  description: Type.String(),
  priority: Int32(),
});

export const TableRowSchema = Type.Object({
  cells: ListAtomic(Type.Unknown()),
  conditions: Type.Optional(ListAtomic(FreeForm())),
  object: Type.Optional(FreeForm({ 'x-svc-embedded-resource': true })),
});

export const TableSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.Literal('Table')),
  metadata: Type.Optional(ListMetaSchema),
  columnDefinitions: ListAtomic(TableColumnDefinitionSchema),
  rows: ListAtomic(TableRowSchema),
});

// What `kubectl explain` says of each field, in this project's words.
describeFields(
  TableColumnDefinitionSchema,
  {
    name: "The column's heading.",
    type: 'The type of its cells: string, integer, number, boolean or date.',
    format: 'A finer type for its cells; `name` marks the column of object names.',
    description: 'What the column shows.',
    priority: 'How important the column is: 0 is shown by default, higher ones only in wide output (`-o wide`).',
  },
  'One column of a Table.',
);
describeFields(
  TableRowSchema,
  {
    cells: 'The values of the row, one per column, in column order.',
    conditions: 'Conditions of the row, such as Completed for a finished object.',
    object: 'The object the row shows, whole or as metadata only, as the includeObject parameter asked.',
  },
  'One object shown as a row of a Table.',
);
describeFields(TableSchema, {
  apiVersion: 'The group and version of this schema, as the client asked for it: `meta.k8s.io/v1` (or `meta.svc.io/v1`).',
  kind: 'Always `Table`.',
  columnDefinitions: 'The columns, in the order their cells appear in each row.',
  rows: 'One row per object.',
});
