import { ConflictSet } from './apply-conflict';
import { Comparison } from './compare';
import { ManagerRecords } from './managed-fields';
import { NodeType } from './schema-types';
import { reconcileWithSchema } from './reconcile-schema';

/** The fields of other managers that this change would modify or add (rule 4). */
export function findConflicts(records: ManagerRecords, selfId: string, c: Comparison): ConflictSet[] {
  const changed = c.modified.union(c.added);
  const conflicts: ConflictSet[] = [];
  for (const [id, record] of records) {
    if (id === selfId) continue;
    const fields = record.fields.intersection(changed);
    if (!fields.isEmpty()) conflicts.push({ id, record, fields });
  }
  return conflicts;
}

/**
 * The writer takes what it changed: every other manager loses the fields the change modified,
 * added or removed; a manager left with nothing is dropped (rule 10).
 */
export function takeOwnership(records: ManagerRecords, selfId: string, c: Comparison): void {
  const changed = c.modified.union(c.added);
  for (const [id, record] of [...records]) {
    if (id === selfId) continue;
    const fields = record.fields.difference(changed).difference(c.removed);
    if (fields.isEmpty()) records.delete(id);
    else records.set(id, { ...record, fields });
  }
}

/** Rule 8: fields owned inside a value the schema now holds atomic become the whole value. */
export function reconcileRecords(records: ManagerRecords, root: NodeType): void {
  for (const [id, record] of records) {
    const fields = reconcileWithSchema(record.fields, root);
    if (fields !== record.fields) records.set(id, { ...record, fields });
  }
}
