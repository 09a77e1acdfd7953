import { Type } from '@sinclair/typebox';
import type { Table, TableColumnDefinition, TableRow } from '@svc/machinery';
import { FreeForm, Int32, ListAtomic } from '../schema/builders';
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
