import type { ListMeta } from './list-meta';

export interface TableColumnDefinition {
  name: string;
  /** OpenAPI type: string, integer, number, boolean, date. */
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableRow {
  cells: unknown[];
  conditions?: Record<string, unknown>[];
  /** The object the row shows, whole or as its metadata, when the client asked for it. */
  object?: Record<string, unknown>;
}

/** A list as rows and columns (`Accept: application/json;as=Table`). */
export interface Table {
  apiVersion?: string;
  kind?: 'Table';
  metadata?: ListMeta;
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}
