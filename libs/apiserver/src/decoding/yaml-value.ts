import { valueNestingDepth } from '@svc/machinery';
import { type Alias, type Document, isAlias, isMap, isPair, isScalar, isSeq, type Node as YamlNode } from 'yaml';

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
  return new YamlConversion(document, maxDepth).run();
}

interface Converted {
  value: unknown;
  expanded: number;
}

/** One document's conversion: the stack of collections being built and what has been counted. */
class YamlConversion {
  private readonly duplicateFields: string[] = [];
  private readonly done = new Map<YamlNode, Converted>();
  private readonly building = new Set<YamlNode>();
  private readonly stack: Frame[] = [];
  /** Each frame remembers which key its pending child belongs to. */
  private readonly pendingKeys: Array<string | number | undefined> = [];
  /** Nodes of the document itself (aliases not expanded). */
  private direct = 0;
  private sharesCollections = false;
  private root: unknown = null;
  private rootExpanded = 0;

  constructor(
    private readonly document: Document,
    private readonly maxDepth: number,
  ) {}

  run(): YamlValue {
    const first = this.start(this.document.contents, '');
    if (first !== undefined) this.finish(first, undefined);
    while (this.stack.length > 0) this.step(this.stack[this.stack.length - 1]);
    this.checkAliasing();
    let root = this.root;
    if (this.sharesCollections) {
      // Later steps change objects in place (defaults, pruning by the schema of where they sit): each
      // place an alias stood gets a copy of its own. The copy is bounded by the ratio checked above.
      const depth = valueNestingDepth(root, this.maxDepth);
      if (depth > this.maxDepth) throw new YamlValueError(`the document nests more than ${this.maxDepth} levels deep`);
      root = JSON.parse(JSON.stringify(root)) as unknown;
    }
    return { value: root, duplicateFields: this.duplicateFields };
  }

  /** The next item of the collection on top of the stack, or the collection finished. */
  private step(frame: Frame): void {
    const items = (frame.node as { items: unknown[] }).items;
    if (frame.next >= items.length) {
      this.stack.pop();
      this.building.delete(frame.node);
      const result = { value: frame.out, expanded: frame.expanded };
      this.done.set(frame.node, result);
      this.finish(result, this.pendingKeys.pop());
      return;
    }
    const item = items[frame.next++];
    const { key, child, path } =
      frame.keys !== undefined
        ? this.entry(frame, frame.keys, item)
        : { key: frame.next - 1, child: item as YamlNode | null, path: `${frame.path}[${frame.next - 1}]` };
    const result = this.start(child, path);
    if (result === undefined) this.pendingKeys.push(key);
    else this.finish(result, key);
  }

  /** A mapping's entry: its key (a node of its own, as Kubernetes' decoder counts it; a repeated one noted) and value. */
  private entry(frame: Frame, keys: Set<string>, item: unknown): { key: string; child: YamlNode | null; path: string } {
    if (!isPair(item)) throw new YamlValueError('a mapping holds an entry that is not a key and a value');
    const key = keyOf(item.key as YamlNode | null);
    const path = frame.path === '' ? key : `${frame.path}.${key}`;
    if (keys.has(key)) this.duplicateFields.push(path);
    keys.add(key);
    this.direct++;
    frame.expanded++;
    return { key, child: item.value as YamlNode | null, path };
  }

  /** The value of a node, or undefined when it is a collection to fill (pushed); counts the nodes of the document itself. */
  private start(node: YamlNode | null | undefined, path: string): Converted | undefined {
    if (node === null || node === undefined) return { value: null, expanded: 1 };
    if (isAlias(node)) return this.aliased(node);
    this.direct++;
    if (isScalar(node)) {
      const result = { value: scalarValue(node.value), expanded: 1 };
      if (node.anchor) this.done.set(node, result);
      return result;
    }
    if (isMap(node) || isSeq(node)) {
      if (this.stack.length >= this.maxDepth) throw new YamlValueError(`the document nests more than ${this.maxDepth} levels deep`);
      this.building.add(node);
      this.stack.push({ node, out: isMap(node) ? {} : [], next: 0, path, keys: isMap(node) ? new Set() : undefined, expanded: 1 });
      return undefined;
    }
    throw new YamlValueError('the document holds a node that is not a scalar, a mapping or a sequence');
  }

  /** What an alias names, shared; never a collection it stands in (recursion). */
  private aliased(node: Alias): Converted {
    const target = node.resolve(this.document);
    if (target === undefined) throw new YamlValueError(`unknown anchor ${JSON.stringify(node.source)}`);
    if (this.building.has(target)) throw new YamlValueError(`the alias ${JSON.stringify(node.source)} refers to a collection that contains it`);
    const known = this.done.get(target);
    if (known !== undefined) {
      if (!isScalar(target)) this.sharesCollections = true;
      return known;
    }
    // An anchor always comes before its alias in the text, so the target is a scalar here.
    if (!isScalar(target)) throw new YamlValueError(`the alias ${JSON.stringify(node.source)} names no finished node`);
    return { value: target.value, expanded: 1 };
  }

  private finish(result: Converted, key: string | number | undefined): void {
    const parent = this.stack[this.stack.length - 1];
    if (parent === undefined) {
      this.root = result.value;
      this.rootExpanded = result.expanded;
      return;
    }
    parent.expanded += result.expanded;
    if (Array.isArray(parent.out)) parent.out.push(result.value);
    else setKey(parent.out, key as string, result.value);
  }

  private checkAliasing(): void {
    const aliased = this.rootExpanded - this.direct;
    if (aliased > 100 && this.rootExpanded > 1000 && aliased / this.rootExpanded > allowedAliasRatio(this.rootExpanded)) {
      throw new YamlValueError('the document contains excessive aliasing');
    }
  }
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
