import { isRecord } from '@svc/machinery';

const SUBSCHEMA_MAPS = ['properties', 'patternProperties', 'definitions'];
const SUBSCHEMA_VALUES = ['items', 'additionalProperties', 'not', 'additionalItems'];
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'items'];

/** One schema nested in another, with its field path (`<parent>.properties[name]`, `<parent>.items`, ...). */
export interface Subschema {
  node: unknown;
  path: string;
}

/** The schemas nested one level inside `node`, for walks that keep their own stack rather than recurse. */
export function childSchemas(node: Record<string, unknown>, path: string): Subschema[] {
  const children: Subschema[] = [];
  for (const key of SUBSCHEMA_MAPS) {
    const map = node[key];
    if (isRecord(map)) for (const [name, child] of Object.entries(map)) children.push({ node: child, path: `${path}.${key}[${name}]` });
  }
  for (const key of SUBSCHEMA_VALUES) if (node[key] !== undefined) children.push({ node: node[key], path: `${path}.${key}` });
  for (const key of SUBSCHEMA_LISTS) {
    const list = node[key];
    if (Array.isArray(list)) list.forEach((child, i) => children.push({ node: child, path: `${path}.${key}[${i}]` }));
  }
  return children;
}
