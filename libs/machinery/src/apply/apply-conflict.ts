import { goQuote } from '../go-quote';
import { StatusCauseTypes, type StatusCause } from '../meta/status';
import { StatusError } from '../status';
import { newApplyConflict } from '../status-errors';
import { FieldSet } from './field-set';
import { ManagerRecord } from './managed-fields';
import { formatFieldPath } from './path-element';

/** Kubernetes' `printManager`: `"name"`, `"name" with subresource "status"`, then ` using <apiVersion>` for updaters. */
export function describeManager(record: Pick<ManagerRecord, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  let text = goQuote(record.manager);
  if (record.subresource) text += ` with subresource ${goQuote(record.subresource)}`;
  if (record.operation === 'Update') text += ` using ${record.apiVersion}`;
  return text;
}

export interface ConflictSet {
  readonly id: string;
  readonly record: ManagerRecord;
  readonly fields: FieldSet;
}

/**
 * 409 Conflict listing every conflicting field, in Kubernetes' wording:
 * `Apply failed with 1 conflict: conflict with "a" using apps/v1: .spec.replicas`, or, for more,
 * `Apply failed with 2 conflicts: conflicts with "a":\n- .spec.replicas\n- ...`, managers sorted
 * by identifier. Each cause is a FieldManagerConflict naming its field.
 */
export function applyConflictError(conflicts: readonly ConflictSet[]): StatusError {
  const sorted = [...conflicts].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const causes: StatusCause[] = [];
  const lines: string[] = [];
  let count = 0;
  let single = '';
  for (const conflict of sorted) {
    const who = describeManager(conflict.record);
    const paths = conflict.fields.paths().map(formatFieldPath);
    lines.push(`conflicts with ${who}:`);
    for (const path of paths) {
      causes.push({ reason: StatusCauseTypes.FieldManagerConflict, message: `conflict with ${who}`, field: path });
      lines.push(`- ${path}`);
      single = `conflict with ${who}: ${path}`;
      count++;
    }
  }
  const message = count === 1 ? `Apply failed with 1 conflict: ${single}` : `Apply failed with ${count} conflicts: ${lines.join('\n')}`;
  return newApplyConflict(causes, message);
}
