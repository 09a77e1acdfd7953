import { JsonObject, isJsonObject } from '../patch';
import { SERVER_NESTING_DEPTH } from '../nesting-depth';
import { FieldSetPath, PathElement, comparePathElements, parsePathElementKey, pathElementKey } from './path-element';

interface ChildNode {
  readonly pe: PathElement;
  readonly set: FieldSet;
}

/**
 * A set of field paths, held as the tree Kubernetes serializes as `fieldsV1`. A path is a member
 * when the manager owns that field; a node with children but no membership only leads to owned
 * fields below it. Operations return new sets and never leave empty child nodes behind.
 *
 * A set is filled (insert) only while it is built, by one walk that owns it; from then on it is
 * read only. Results of union and difference therefore share the subtrees they do not change with
 * their operands: copying a 150,000-key label map at every step cost seconds.
 */
export class FieldSet {
  private readonly children = new Map<string, ChildNode>();

  constructor(private readonly members = new Map<string, PathElement>()) {}

  static of(...paths: FieldSetPath[]): FieldSet {
    const set = new FieldSet();
    for (const path of paths) set.insert(path);
    return set;
  }

  /** Adds a path; its parents are not made members. The empty path (the whole object) is never tracked. */
  insert(path: FieldSetPath): void {
    if (path.length === 0) return;
    let node: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) node = node.descend(path[i]);
    const last = path[path.length - 1];
    node.members.set(pathElementKey(last), last);
  }

  has(path: FieldSetPath): boolean {
    if (path.length === 0) return false;
    let node: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1 && node; i++) node = node.child(path[i]);
    return node !== undefined && node.hasMember(path[path.length - 1]);
  }

  hasMember(pe: PathElement): boolean {
    return this.members.has(pathElementKey(pe));
  }

  /** The subset below `pe`, when there is one. */
  child(pe: PathElement): FieldSet | undefined {
    return this.children.get(pathElementKey(pe))?.set;
  }

  /** The elements that lead to members below them. */
  childElements(): PathElement[] {
    return [...this.children.values()].filter((node) => !node.set.isEmpty()).map((node) => node.pe);
  }

  /** Whether `pe` is a member or leads to members. */
  touches(pe: PathElement): boolean {
    const key = pathElementKey(pe);
    return this.members.has(key) || this.children.has(key);
  }

  isEmpty(): boolean {
    if (this.members.size > 0) return false;
    for (const node of this.children.values()) if (!node.set.isEmpty()) return false;
    return true;
  }

  /** How many paths are members. */
  size(): number {
    let n = this.members.size;
    for (const node of this.children.values()) n += node.set.size();
    return n;
  }

  union(other: FieldSet): FieldSet {
    const out = new FieldSet(new Map(this.members));
    for (const [key, pe] of other.members) out.members.set(key, pe);
    for (const [key, node] of this.children) {
      const theirs = other.children.get(key);
      out.putChild(key, node.pe, theirs ? node.set.union(theirs.set) : node.set);
    }
    for (const [key, node] of other.children) {
      if (!this.children.has(key)) out.putChild(key, node.pe, node.set);
    }
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [key, pe] of this.members) if (other.members.has(key)) out.members.set(key, pe);
    for (const [key, node] of this.children) {
      const theirs = other.children.get(key);
      if (theirs) out.putChild(key, node.pe, node.set.intersection(theirs.set));
    }
    return out;
  }

  /** Members of this set not in `other`; a member of `other` does not remove paths below it. */
  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [key, pe] of this.members) if (!other.members.has(key)) out.members.set(key, pe);
    for (const [key, node] of this.children) {
      const theirs = other.children.get(key);
      out.putChild(key, node.pe, theirs ? node.set.difference(theirs.set) : node.set);
    }
    return out;
  }

  /** Like difference, but a member of `other` also removes everything below it. */
  recursiveDifference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [key, pe] of this.members) if (!other.members.has(key)) out.members.set(key, pe);
    for (const [key, node] of this.children) {
      if (other.members.has(key)) continue;
      const theirs = other.children.get(key);
      out.putChild(key, node.pe, theirs ? node.set.recursiveDifference(theirs.set) : node.set);
    }
    return out;
  }

  /** A deep copy, so that inserting into the result never changes this set. */
  clone(): FieldSet {
    const out = new FieldSet(new Map(this.members));
    for (const [key, node] of this.children) out.putChild(key, node.pe, node.set.clone());
    return out;
  }

  equals(other: FieldSet): boolean {
    if (this.members.size !== other.members.size) return false;
    for (const key of this.members.keys()) if (!other.members.has(key)) return false;
    const mine = [...this.children].filter(([, n]) => !n.set.isEmpty());
    const theirs = [...other.children].filter(([, n]) => !n.set.isEmpty());
    if (mine.length !== theirs.length) return false;
    return mine.every(([key, node]) => {
      const match = other.children.get(key);
      return match !== undefined && node.set.equals(match.set);
    });
  }

  /**
   * Every member path in structured-merge-diff's iteration order: a node's own members (sorted)
   * first, then the subtrees of its children (sorted).
   */
  paths(): FieldSetPath[] {
    const out: FieldSetPath[] = [];
    this.collect([], out);
    return out;
  }

  /** The `fieldsV1` object: sorted keys, `"."` first where a node is both a member and a parent. */
  toFieldsV1(): JsonObject {
    return this.emit(false);
  }

  /** Parses a `fieldsV1` object; throws an Error describing the first malformed part. */
  static fromFieldsV1(value: unknown): FieldSet {
    if (!isJsonObject(value)) throw new Error('fieldsV1 must be a JSON object');
    const set = new FieldSet();
    set.read(value, 0);
    return set;
  }

  private read(value: JsonObject, depth: number): void {
    if (depth > SERVER_NESTING_DEPTH) throw new Error('fieldsV1 is nested too deeply');
    for (const key of Object.keys(value)) {
      if (key === '.') continue;
      const pe = parsePathElementKey(key);
      const inner = value[key];
      if (!isJsonObject(inner)) throw new Error(`fieldsV1 entry ${JSON.stringify(key)} must be an object`);
      // A field's key is already in its one spelling; keys and values are spelled anew (member order).
      const canonical = pe.kind === 'field' ? key : pathElementKey(pe);
      // Most entries of a wide map are leaves (`{}`): tell leaf, member and parent apart without a key array each.
      let leaf = true;
      let dot = false;
      let below = false;
      for (const k in inner) {
        leaf = false;
        if (k === '.') dot = true;
        else below = true;
        if (dot && below) break;
      }
      if (leaf || dot) this.members.set(canonical, pe);
      if (below) {
        const child = new FieldSet();
        child.read(inner, depth + 1);
        this.putChild(canonical, pe, child);
      }
    }
  }

  private emit(includeSelf: boolean): JsonObject {
    const out: JsonObject = {};
    const keys = [...this.members.keys()];
    for (const [key, node] of this.children) if (!this.members.has(key) && !node.set.isEmpty()) keys.push(key);
    if (includeSelf && keys.length > 0) out['.'] = {};
    for (const key of this.sortKeys(keys)) {
      const node = this.children.get(key);
      const hasChildren = node !== undefined && !node.set.isEmpty();
      out[key] = hasChildren ? node.set.emit(this.members.has(key)) : {};
    }
    return out;
  }

  /**
   * Keys in structured-merge-diff's order. Field names without surrogates order the same by their
   * `f:` keys as by comparePathElements, and the built-in sort is many times faster on the wide
   * maps (labels, data) clients may send.
   */
  private sortKeys(keys: string[]): string[] {
    if (keys.every((key) => key.startsWith('f:') && !SURROGATE.test(key))) return keys.sort();
    const element = (key: string) => this.members.get(key) ?? this.children.get(key)!.pe;
    return keys.sort((a, b) => comparePathElements(element(a), element(b)));
  }

  private collect(prefix: PathElement[], out: FieldSetPath[]): void {
    const members = [...this.members.values()].sort(comparePathElements);
    for (const pe of members) out.push([...prefix, pe]);
    const children = [...this.children.values()].sort((a, b) => comparePathElements(a.pe, b.pe));
    for (const node of children) node.set.collect([...prefix, node.pe], out);
  }

  private descend(pe: PathElement): FieldSet {
    const key = pathElementKey(pe);
    let node = this.children.get(key);
    if (!node) {
      node = { pe, set: new FieldSet() };
      this.children.set(key, node);
    }
    return node.set;
  }

  private putChild(key: string, pe: PathElement, set: FieldSet): void {
    if (!set.isEmpty()) this.children.set(key, { pe, set });
  }
}

/** Surrogate halves, which order differently in UTF-16 (JavaScript) and in UTF-8 (Go). */
const SURROGATE = /[\ud800-\udfff]/;
