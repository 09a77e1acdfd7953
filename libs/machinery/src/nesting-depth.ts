/**
 * Bounds on how deeply a request body and a stored object may nest, checked before any parser or
 * recursive walk sees them.
 *
 * Kubernetes allows 10,000 levels, which Go's growable stacks handle. Node's stack is fixed (about
 * 1 MB): `JSON.stringify` gives up at about 4,100 levels and `structuredClone` at about 1,900, and
 * every object the server stores is stringified, cloned, frozen and walked by validation, managed
 * fields and the controllers' clients. 1,000 levels leaves each of those walks room to spare; real
 * objects nest a few dozen levels at most.
 */
export const MAX_NESTING_DEPTH = 1000;

/**
 * Room the server's own walks leave above the limit for what it adds to an object: managedFields
 * sit four levels down and track the object's fields as deep as they go.
 */
export const SERVER_NESTING_DEPTH = MAX_NESTING_DEPTH + 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/**
 * The deepest nesting of arrays and objects in JSON text, counted without parsing it (strings are
 * skipped; the text need not be valid). Stops counting once `limit` is passed and returns limit + 1.
 */
export function jsonNestingDepth(text: Buffer | string, limit = MAX_NESTING_DEPTH): number {
  // A body shorter than the limit cannot nest deeper than it: each level takes a byte.
  if (text.length <= limit) return 0;
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  let depth = 0;
  let max = 0;
  const n = bytes.length;
  for (let i = 0; i < n; i++) {
    const c = bytes[i];
    if (c === QUOTE) {
      for (i++; i < n; i++) {
        const s = bytes[i];
        if (s === BACKSLASH) i++;
        else if (s === QUOTE) break;
      }
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > max) {
        max = depth;
        if (max > limit) return limit + 1;
      }
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      if (depth > 0) depth--;
    }
  }
  return max;
}

interface BlockLevel {
  column: number;
  /** Collections this line opens in block style: one per `- ` or `? ` indicator and one for a `key:`. */
  levels: number;
  /** The line is a mapping key (not a sequence entry): a sequence may sit under it at the same column. */
  mappingKey: boolean;
}

/**
 * An upper bound of how deeply YAML text nests, counted in one pass over its lines without parsing it:
 * flow collections exactly (brackets and braces outside quotes and comments), block collections from
 * indentation and the `- `, `? ` and `key:` indicators of each line. The bound is exact for flow style
 * and for one collection per line, and at most about twice the real depth for compact block styles.
 * Block scalars (`|`, `>`) and quoted scalars are skipped. Stops once `limit` is passed and returns
 * limit + 1. Aliases are not followed: the decoded value is measured again (valueNestingDepth).
 */
export function yamlNestingBound(text: string, limit = MAX_NESTING_DEPTH): number {
  if (text.length <= limit) return 0;
  const stack: BlockLevel[] = [];
  let blockDepth = 0;
  let flowDepth = 0;
  let max = 0;
  /** Open quote carried to the next line: `"` or `'`, or undefined. */
  let quote: string | undefined;
  /** Column at or below which a block scalar ends; -1 when not in one. */
  let blockScalarParent = -1;
  const exceeded = (depth: number): boolean => {
    if (depth > max) max = depth;
    return max > limit;
  };

  let lineStart = 0;
  const n = text.length;
  while (lineStart <= n) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = n;
    const line = text.slice(lineStart, lineEnd);
    lineStart = lineEnd + 1;

    let column = 0;
    while (column < line.length && line.charCodeAt(column) === 0x20) column++;
    const blank = column >= line.length || line[column] === '#' || line[column] === '\r';
    if (blockScalarParent >= 0) {
      if (blank || column > blockScalarParent) continue;
      blockScalarParent = -1;
    }
    if (blank && quote === undefined) continue;

    let i = column;
    if (quote === undefined && flowDepth === 0) {
      if (line.startsWith('---', column) || line.startsWith('...', column) || line[column] === '%') continue;
      // Leave the block collections this line is not inside of.
      const entry = line[column] === '-' && isIndicatorEnd(line, column + 1);
      while (stack.length > 0) {
        const top = stack[stack.length - 1];
        if (top.column < column || (top.column === column && top.mappingKey && entry)) break;
        blockDepth -= top.levels;
        stack.pop();
      }
      // Count this line's indicators: `- - ` and `? ` open collections, then at most one `key:`.
      // The node a block scalar on this line belongs to starts at the last of them.
      let levels = 0;
      let nodeColumn = column;
      while (i < line.length && (line[i] === '-' || line[i] === '?') && isIndicatorEnd(line, i + 1)) {
        levels++;
        nodeColumn = i;
        i++;
        while (i < line.length && line[i] === ' ') i++;
      }
      const key = mappingKeyEnd(line, i);
      if (key >= 0) {
        levels++;
        nodeColumn = i;
        i = key + 1;
        while (i < line.length && line[i] === ' ') i++;
      }
      stack.push({ column, levels, mappingKey: key >= 0 && !entry });
      blockDepth += levels;
      if (exceeded(blockDepth)) return limit + 1;
      // Skip anchors and tags in front of the value.
      while (i < line.length && (line[i] === '&' || line[i] === '!')) {
        while (i < line.length && line[i] !== ' ') i++;
        while (i < line.length && line[i] === ' ') i++;
      }
      if (line[i] === '|' || line[i] === '>') {
        // Its text is every following line indented past that node, and blank lines.
        blockScalarParent = nodeColumn;
        continue;
      }
      // In block context only a value that starts with a bracket is a flow collection.
      if (line[i] !== '[' && line[i] !== '{' && line[i] !== '"' && line[i] !== "'") continue;
    }

    for (; i < line.length; i++) {
      const c = line[i];
      if (quote !== undefined) {
        if (quote === '"' && c === '\\') i++;
        else if (c === quote) {
          if (quote === "'" && line[i + 1] === "'") i++;
          else quote = undefined;
        }
        continue;
      }
      if (c === '"' || c === "'") quote = c;
      else if (c === '#' && (i === 0 || line[i - 1] === ' ' || line[i - 1] === '\t')) break;
      else if (c === '[' || c === '{') {
        flowDepth++;
        if (exceeded(blockDepth + flowDepth)) return limit + 1;
      } else if ((c === ']' || c === '}') && flowDepth > 0) {
        flowDepth--;
      } else if (flowDepth === 0 && c !== ' ') {
        // A plain scalar in block context: brackets inside it are text.
        break;
      }
    }
  }
  return max;
}

/** `-` or `?` followed by a space, a tab or the end of the line is an indicator, not text. */
function isIndicatorEnd(line: string, next: number): boolean {
  return next >= line.length || line[next] === ' ' || line[next] === '\t' || line[next] === '\r';
}

/** The index of the `:` ending a plain or quoted mapping key that starts at `from`, or -1. */
function mappingKeyEnd(line: string, from: number): number {
  let i = from;
  const first = line[i];
  if (first === undefined || first === '[' || first === '{' || first === '#' || first === '|' || first === '>') return -1;
  if (first === '"' || first === "'") {
    for (i++; i < line.length; i++) {
      if (first === '"' && line[i] === '\\') i++;
      else if (line[i] === first) {
        if (first === "'" && line[i + 1] === "'") i++;
        else break;
      }
    }
    i++;
    while (i < line.length && line[i] === ' ') i++;
    return line[i] === ':' && isIndicatorEnd(line, i + 1) ? i : -1;
  }
  for (; i < line.length; i++) {
    if (line[i] === ':' && isIndicatorEnd(line, i + 1)) return i;
    if (line[i] === '#' && line[i - 1] === ' ') return -1;
  }
  return -1;
}

/**
 * The deepest nesting of arrays and objects in a decoded value, measured without recursion. A value
 * decoded from YAML may share sub-values through aliases, so each object is measured once and its
 * depth reused. Stops once `limit` is passed and returns limit + 1.
 */
export function valueNestingDepth(value: unknown, limit = MAX_NESTING_DEPTH): number {
  if (typeof value !== 'object' || value === null) return 0;
  const known = new Map<object, number>();
  const onPath = new Set<object>();
  // Post-order walk: a frame is finished once all its children are known.
  // An object's children are reached through its keys: Object.values on an object of 100,000 keys
  // (held by V8 as a dictionary) costs about three times as much as the keys and a lookup each.
  const stack: Array<{ node: object; keys: string[] | undefined; count: number; next: number; deepest: number }> = [];
  const enter = (node: object): void => {
    onPath.add(node);
    const keys = Array.isArray(node) ? undefined : Object.keys(node);
    stack.push({ node, keys, count: keys === undefined ? (node as unknown[]).length : keys.length, next: 0, deepest: 0 });
  };
  enter(value);
  while (stack.length > 0) {
    if (stack.length > limit) return limit + 1;
    const frame = stack[stack.length - 1];
    if (frame.next < frame.count) {
      const index = frame.next++;
      const child = frame.keys === undefined ? (frame.node as unknown[])[index] : (frame.node as Record<string, unknown>)[frame.keys[index]];
      if (typeof child !== 'object' || child === null) continue;
      const depth = known.get(child);
      if (depth !== undefined) {
        if (depth > frame.deepest) frame.deepest = depth;
      } else if (onPath.has(child)) {
        // Only a recursive alias makes a cycle; it nests without end.
        return limit + 1;
      } else {
        enter(child);
      }
      continue;
    }
    stack.pop();
    onPath.delete(frame.node);
    const depth = frame.deepest + 1;
    if (depth > limit) return limit + 1;
    known.set(frame.node, depth);
    const parent = stack[stack.length - 1];
    if (parent !== undefined && depth > parent.deepest) parent.deepest = depth;
  }
  return known.get(value) ?? 0;
}
