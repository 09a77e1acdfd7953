import { valueNestingDepth } from '@svc/machinery';
import { type Document, isAlias, isMap, isPair, isScalar, isSeq, type Node as YamlNode } from 'yaml';

/** Why a YAML document could not become a JSON value; the decoder answers 400 with it. */
export class YamlValueError extends Error {}

export interface YamlValue {
  value: unknown;
  /** Paths of keys that appeared twice in one mapping; the value holds the last of them. */
  duplicateFields: string[];
}

interface Frame {
  node: YamlNode;
  out: Record<string, unknown> | unknown[];
  next: number;
  path: string;
  keys?: Set<string>;
  /** Nodes of the expanded tree under this node, itself included (aliases count what they name). */
  expanded: number;
}

/**
 * Turns a parsed YAML document into a plain JSON value without recursion (the library's own
 * conversion recurses several frames per level and overflows the stack long before the nesting
 * limit). Aliases share the value they name, so nothing is copied; an alias of a collection still
 * being built (a recursive alias) is refused, and so is a document whose aliases expand it far
 * beyond its own size, by the ratio Kubernetes' YAML decoder allows. Keys must be scalars; they
 * become strings, as when Kubernetes converts YAML to JSON.
 */
export function yamlDocumentToValue(document: Document, maxDepth: number): YamlValue {
  const duplicateFields: string[] = [];
  const done = new Map<YamlNode, { value: unknown; expanded: number }>();
  const building = new Set<YamlNode>();
  const stack: Frame[] = [];
  let direct = 0;
  let sharesCollections = false;
  let root: unknown = null;
  let rootExpanded = 0;

  /** The value of a node, or a frame to fill (pushed); counts the nodes of the document itself. */
  const start = (node: YamlNode | null | undefined, path: string): { value: unknown; expanded: number } | undefined => {
    if (node === null || node === undefined) return { value: null, expanded: 1 };
    if (isAlias(node)) {
      const target = node.resolve(document);
      if (target === undefined) throw new YamlValueError(`unknown anchor ${JSON.stringify(node.source)}`);
      if (building.has(target)) throw new YamlValueError(`the alias ${JSON.stringify(node.source)} refers to a collection that contains it`);
      const known = done.get(target);
      if (known !== undefined) {
        if (!isScalar(target)) sharesCollections = true;
        return known;
      }
      // An anchor always comes before its alias in the text, so the target is a scalar here.
      if (!isScalar(target)) throw new YamlValueError(`the alias ${JSON.stringify(node.source)} names no finished node`);
      return { value: target.value, expanded: 1 };
    }
    direct++;
    if (isScalar(node)) {
      const value = scalarValue(node.value);
      const result = { value, expanded: 1 };
      if (node.anchor) done.set(node, result);
      return result;
    }
    if (isMap(node) || isSeq(node)) {
      if (stack.length >= maxDepth) throw new YamlValueError(`the document nests more than ${maxDepth} levels deep`);
      const out: Record<string, unknown> | unknown[] = isMap(node) ? {} : [];
      building.add(node);
      stack.push({ node, out, next: 0, path, keys: isMap(node) ? new Set() : undefined, expanded: 1 });
      return undefined;
    }
    throw new YamlValueError('the document holds a node that is not a scalar, a mapping or a sequence');
  };

  const finish = (result: { value: unknown; expanded: number }, key: string | number | undefined): void => {
    const parent = stack[stack.length - 1];
    if (parent === undefined) {
      root = result.value;
      rootExpanded = result.expanded;
      return;
    }
    parent.expanded += result.expanded;
    if (Array.isArray(parent.out)) parent.out.push(result.value);
    else setKey(parent.out, key as string, result.value);
  };

  const first = start(document.contents, '');
  if (first !== undefined) finish(first, undefined);

  // Each frame remembers which key its pending child belongs to.
  const pendingKeys: Array<string | number | undefined> = [];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    const items = (frame.node as { items: unknown[] }).items;
    if (frame.next >= items.length) {
      stack.pop();
      building.delete(frame.node);
      const result = { value: frame.out, expanded: frame.expanded };
      done.set(frame.node, result);
      finish(result, pendingKeys.pop());
      continue;
    }
    const item = items[frame.next++];
    let key: string | number;
    let child: YamlNode | null | undefined;
    let path: string;
    if (frame.keys !== undefined) {
      if (!isPair(item)) throw new YamlValueError('a mapping holds an entry that is not a key and a value');
      key = keyOf(item.key as YamlNode | null);
      path = frame.path === '' ? key : `${frame.path}.${key}`;
      if (frame.keys.has(key)) duplicateFields.push(path);
      frame.keys.add(key);
      child = item.value as YamlNode | null;
      // The key is a node of its own, as Kubernetes' decoder counts it.
      direct++;
      frame.expanded++;
    } else {
      key = frame.next - 1;
      path = `${frame.path}[${key}]`;
      child = item as YamlNode | null;
    }
    const result = start(child, path);
    if (result === undefined) pendingKeys.push(key);
    else finish(result, key);
  }

  const aliased = rootExpanded - direct;
  if (aliased > 100 && rootExpanded > 1000 && aliased / rootExpanded > allowedAliasRatio(rootExpanded)) {
    throw new YamlValueError('the document contains excessive aliasing');
  }
  if (sharesCollections) {
    // Later steps change objects in place (defaults, pruning by the schema of where they sit): each
    // place an alias stood gets a copy of its own. The copy is bounded by the ratio above.
    const depth = valueNestingDepth(root, maxDepth);
    if (depth > maxDepth) throw new YamlValueError(`the document nests more than ${maxDepth} levels deep`);
    root = JSON.parse(JSON.stringify(root)) as unknown;
  }
  return { value: root, duplicateFields };
}

/**
 * Kubernetes' YAML decoder lets aliases account for almost all of a small document's nodes and for
 * ever less of a large one's: 99% up to 400,000 nodes, falling to 10% at 4,000,000.
 */
function allowedAliasRatio(nodes: number): number {
  if (nodes <= 400_000) return 0.99;
  if (nodes >= 4_000_000) return 0.1;
  return 0.1 + (0.99 - 0.1) * (1 - (nodes - 400_000) / (4_000_000 - 400_000));
}

function keyOf(node: YamlNode | null): string {
  if (node === null) return '';
  if (isScalar(node)) {
    const value = node.value;
    if (value === null || value === undefined) return '';
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  }
  if (isAlias(node)) throw new YamlValueError('an alias may not stand as a mapping key');
  throw new YamlValueError('a mapping key must be a string, a number or a boolean');
}

function scalarValue(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'bigint') return Number(value);
  throw new YamlValueError(`the document holds a value JSON cannot carry (${typeof value})`);
}

/** Sets a key as data, `__proto__` included. */
function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
