import { buildTable, type ApiObject, type IncludeObject, type KindDefinition } from '@svc/api';

export interface ListMetaFields {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

/**
 * A Table of `objects` in the meta group the client asked for (`meta.svc.io/v1`, or `meta.k8s.io/v1`
 * for kubectl), with the kind's columns. With includeObject=Metadata (the default) each row carries a
 * PartialObjectMetadata of that same group, which is what kubectl decodes.
 */
export function tableOf(
  def: KindDefinition,
  objects: readonly ApiObject[],
  apiVersion: string,
  includeObject: IncludeObject,
  meta: ListMetaFields = {},
): Record<string, unknown> {
  const table = buildTable(def, objects, { includeObject, ...meta });
  const rows = includeObject === 'Metadata' ? table.rows.map((row) => (row.object ? { ...row, object: { ...row.object, apiVersion } } : row)) : table.rows;
  return { ...table, apiVersion, rows };
}

/** The metadata-only view of one object (`as=PartialObjectMetadata`). */
export function partialObjectMetadataOf(object: ApiObject, apiVersion: string): Record<string, unknown> {
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: object.metadata ?? {} };
}

/** The metadata-only view of a list (`as=PartialObjectMetadataList`). */
export function partialObjectMetadataListOf(objects: readonly ApiObject[], apiVersion: string, meta: ListMetaFields): Record<string, unknown> {
  return { kind: 'PartialObjectMetadataList', apiVersion, metadata: meta, items: objects.map((o) => partialObjectMetadataOf(o, apiVersion)) };
}
