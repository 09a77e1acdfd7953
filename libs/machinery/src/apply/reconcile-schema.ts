import { FieldSet } from './field-set';
import { FieldSetPath } from './path-element';
import { NodeType, fieldType } from './schema-types';

/**
 * Rule 8 of field ownership: when the schema turned a granular list, map or struct atomic, a
 * manager that owned anything inside it owns the whole value from now on. The reverse change
 * needs nothing: a member on a now-granular node owns that node and nothing below it. Paths the
 * schema does not describe (deduced types) are left alone, as Kubernetes does.
 */
export function reconcileWithSchema(set: FieldSet, root: NodeType): FieldSet {
  const collapse: FieldSetPath[] = [];
  find(set, root, [], collapse);
  if (collapse.length === 0) return set;
  const whole = FieldSet.of(...collapse);
  return set.recursiveDifference(whole).union(whole);
}

function find(set: FieldSet, type: NodeType, path: FieldSetPath, out: FieldSetPath[]): void {
  for (const pe of set.childElements()) {
    let childType: NodeType | undefined;
    if (pe.kind === 'field' && type.kind === 'map') childType = fieldType(type, pe.name).type;
    else if (pe.kind !== 'field' && type.kind === 'list') childType = type.item;
    if (!childType) continue;
    const childPath = [...path, pe];
    const atomic = (childType.kind === 'map' && childType.atomic) || (childType.kind === 'list' && childType.relation === 'atomic');
    if (atomic) out.push(childPath);
    else find(set.child(pe)!, childType, childPath, out);
  }
}
