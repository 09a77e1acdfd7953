import type { ApiObject } from '../kind-definition';
import { childSchemas } from './crd-subschemas';
import { isRecord, records } from './define-kind';

const RULE_MARKERS = ['x-kubernetes-validations', 'x-svc-validations'];
/** Places named one by one in the warning; past this the rest are counted. */
const MAX_PLACES_NAMED = 3;
/** How deep the walk goes: a stored schema nests at most MAX_SCHEMA_NESTING; this bounds a hostile one too. */
const MAX_DEPTH = 256;

/** The field paths of a schema's nodes that carry validation rules, found without recursion. */
function rulePaths(schema: unknown, root: string): string[] {
  const found: string[] = [];
  const pending: Array<{ node: unknown; path: string; depth: number }> = [{ node: schema, path: root, depth: 0 }];
  while (pending.length > 0) {
    const { node, path, depth } = pending.pop()!;
    if (!isRecord(node) || depth > MAX_DEPTH) continue;
    for (const marker of RULE_MARKERS) {
      const rules = node[marker];
      if (Array.isArray(rules) && rules.length > 0) found.push(`${path}.${marker}`);
    }
    for (const child of childSchemas(node, path)) pending.push({ ...child, depth: depth + 1 });
  }
  return found.sort();
}

/**
 * CRD validation rules (`x-kubernetes-validations`, CEL expressions) are stored and served but not
 * evaluated: custom resources are admitted without them. A CRD that carries rules is accepted, as
 * real manifests carry them, and its writer is told so by a warning rather than left to believe the
 * rules hold.
 */
export function validationRuleWarnings(crd: ApiObject): string[] {
  const spec = isRecord(crd.spec) ? crd.spec : {};
  const paths: string[] = [];
  records(spec.versions).forEach((version, i) => {
    const schema = isRecord(version.schema) ? version.schema.openAPIV3Schema : undefined;
    for (const path of rulePaths(schema, `spec.versions[${i}].schema.openAPIV3Schema`)) paths.push(path);
  });
  if (paths.length === 0) return [];
  const named = paths.slice(0, MAX_PLACES_NAMED).join(', ');
  const more = paths.length > MAX_PLACES_NAMED ? ` and ${paths.length - MAX_PLACES_NAMED} more` : '';
  return [`${named}${more}: validation rules are not evaluated by this server; custom resources are admitted without them`];
}
