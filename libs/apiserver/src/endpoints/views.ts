import { apiVersionOf, buildTable, type ApiObject, type IncludeObject, type KindDefinition } from '@svc/api';
import type { ListOutcome } from '../registry/types';
import { parseIncludeObject } from './query-options';
import type { OutputFormat } from './responses/negotiation';

// What a read answers in the view the client asked for (`Accept: ...;as=Table`, `as=PartialObjectMetadata`).

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

/** What a list answers in any view: its kind and apiVersion and the list metadata (`continue` on every list, empty on the last chunk). */
export function listHead(def: KindDefinition, outcome: { resourceVersion: string; continue?: string; remainingItemCount?: number }) {
  const meta: { resourceVersion: string; continue: string; remainingItemCount?: number } = {
    resourceVersion: outcome.resourceVersion,
    continue: outcome.continue ?? '',
  };
  if (outcome.remainingItemCount !== undefined) meta.remainingItemCount = outcome.remainingItemCount;
  return { kind: def.listKind, apiVersion: apiVersionOf(def), metadata: meta };
}

/** One object as the client asked to see it: itself, a Table of one row, or its metadata. */
export function viewOfObject(def: KindDefinition, object: ApiObject, format: OutputFormat, params: URLSearchParams): unknown {
  const view = format.view;
  if (view === undefined) return object;
  if (view.as === 'Table') return tableOf(def, [object], view.apiVersion, parseIncludeObject(params), { resourceVersion: object.metadata?.resourceVersion });
  return partialObjectMetadataOf(object, view.apiVersion);
}

/** A list as the client asked to see it: the kind's list, a Table, or the items' metadata. */
export function viewOfList(def: KindDefinition, outcome: ListOutcome, format: OutputFormat, params: URLSearchParams): unknown {
  const head = listHead(def, outcome);
  const view = format.view;
  if (view?.as === 'Table') return tableOf(def, outcome.items, view.apiVersion, parseIncludeObject(params), head.metadata);
  if (view !== undefined) return partialObjectMetadataListOf(outcome.items, view.apiVersion, head.metadata);
  return { ...head, items: outcome.items };
}
