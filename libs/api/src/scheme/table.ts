import { TABLE_API_VERSION, type Table, type TableRow } from '../meta/table';
import { timestampSince } from './human-duration';
import type { ApiObject, KindDefinition, TableCellContext, TableColumn } from './kind-definition';

const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically.';
const CREATION_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is represented in RFC3339 form and is in UTC.';

type CellFn = (obj: ApiObject, context: TableCellContext) => unknown;

export function column(name: string, type: string, cell: CellFn, options: { priority?: number; format?: string; description?: string } = {}): TableColumn {
  return { name, type, format: options.format ?? '', description: options.description ?? '', priority: options.priority ?? 0, cell };
}

export const nameColumn = (): TableColumn => column('Name', 'string', (o) => o.metadata?.name ?? '', { format: 'name', description: NAME_DESCRIPTION });

export const ageColumn = (): TableColumn =>
  column('Age', 'string', (o, { now }) => timestampSince(o.metadata?.creationTimestamp, now), { description: CREATION_DESCRIPTION });

/** The table of a kind without its own columns, as the specification describes it. */
export const DEFAULT_COLUMNS: readonly TableColumn[] = [
  nameColumn(),
  column('Created At', 'date', (o) => o.metadata?.creationTimestamp ?? null, { description: CREATION_DESCRIPTION }),
];

export function columnsOf(def: KindDefinition): readonly TableColumn[] {
  return def.columns ?? DEFAULT_COLUMNS;
}

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface BuildTableOptions {
  now?: Date;
  /** What each row's `object` carries (Kubernetes' `includeObject`, default Metadata). */
  includeObject?: IncludeObject;
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

function rowObject(def: KindDefinition, obj: ApiObject, include: IncludeObject): Record<string, unknown> | undefined {
  if (include === 'None') return undefined;
  if (include === 'Object') return obj;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.svc.io/v1', metadata: obj.metadata ?? {} };
}

/** A `meta.svc.io/v1` Table of `objects` with the kind's columns (every column, wide ones included). */
export function buildTable(def: KindDefinition, objects: readonly ApiObject[], options: BuildTableOptions = {}): Table {
  const columns = columnsOf(def);
  const context: TableCellContext = { now: options.now ?? new Date() };
  const include = options.includeObject ?? 'Metadata';
  const rows: TableRow[] = objects.map((obj) => {
    const row: TableRow = { cells: columns.map((c) => c.cell(obj, context) ?? null) };
    const object = rowObject(def, obj, include);
    if (object) row.object = object;
    return row;
  });
  const metadata: Table['metadata'] = {};
  if (options.resourceVersion !== undefined) metadata.resourceVersion = options.resourceVersion;
  if (options.continue !== undefined) metadata.continue = options.continue;
  if (options.remainingItemCount !== undefined) metadata.remainingItemCount = options.remainingItemCount;
  return {
    kind: 'Table',
    apiVersion: TABLE_API_VERSION,
    metadata,
    columnDefinitions: columns.map(({ name, type, format, description, priority }) => ({ name, type, format, description, priority })),
    rows,
  };
}
