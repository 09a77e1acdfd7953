/**
 * Finds keys that appear more than once in one JSON object of a document. `JSON.parse` silently keeps
 * the last of them, but field validation must report them (`duplicate field "spec.replicas"`), so the
 * text is scanned once more. The text must already be known to be valid JSON (parse it first).
 *
 * Paths read like Kubernetes field paths: `metadata.name`, `spec.containers[0].image`.
 */
export function findDuplicateJsonKeys(text: string): string[] {
  const found: string[] = [];
  let frame: Frame | undefined;
  let pendingKey: string | undefined;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    switch (c) {
      case 0x7b /* { */:
      case 0x5b /* [ */:
        frame = openFrame(frame, pendingKey, c === 0x7b);
        pendingKey = undefined;
        i++;
        break;
      case 0x7d /* } */:
      case 0x5d /* ] */:
        frame = frame?.parent;
        pendingKey = undefined;
        i++;
        break;
      case 0x2c /* , */:
        if (frame !== undefined) {
          if (frame.keys !== undefined) frame.expectKey = true;
          else frame.index++;
        }
        pendingKey = undefined;
        i++;
        break;
      case 0x22 /* " */: {
        const end = stringEnd(text, i);
        pendingKey = frame?.keys !== undefined && frame.expectKey ? takeKey(text, i, end, frame, frame.keys, found) : undefined;
        i = end + 1;
        break;
      }
      default:
        i++;
    }
  }
  return found;
}

/** The container opened under `parent`, named by the key before it or its index in an array. */
function openFrame(parent: Frame | undefined, pendingKey: string | undefined, object: boolean): Frame {
  return { parent, parentKey: pendingKey ?? childLabel(parent), keys: object ? new Set() : undefined, index: object ? -1 : 0, expectKey: object };
}

/** The key the string from `start` to `end` spells, recorded in its object (a repeated one found). */
function takeKey(text: string, start: number, end: number, frame: Frame, keys: Set<string>, found: string[]): string {
  const raw = text.slice(start + 1, end);
  const key = raw.includes('\\') ? (JSON.parse(text.slice(start, end + 1)) as string) : raw;
  if (keys.has(key)) found.push(pathOf(frame, key));
  else keys.add(key);
  frame.expectKey = false;
  return key;
}

interface Frame {
  parent: Frame | undefined;
  /** How the parent names this container: a key, or `[n]` for an array item. */
  parentKey: string | undefined;
  /** Keys seen so far; undefined for arrays. */
  keys: Set<string> | undefined;
  /** Index of the current item, for arrays. */
  index: number;
  expectKey: boolean;
}

function childLabel(parent: Frame | undefined): string | undefined {
  return parent !== undefined && parent.keys === undefined ? `[${parent.index}]` : undefined;
}

function pathOf(frame: Frame, key: string): string {
  const parts: string[] = [key];
  for (let f: Frame | undefined = frame; f !== undefined && f.parentKey !== undefined; f = f.parent) parts.push(f.parentKey);
  let path = '';
  for (let k = parts.length - 1; k >= 0; k--) {
    const part = parts[k];
    path = part.startsWith('[') || path === '' ? path + part : `${path}.${part}`;
  }
  return path;
}

/** Index of the quote closing the string that opens at `start`. */
function stringEnd(text: string, start: number): number {
  let at = text.indexOf('"', start + 1);
  while (at > 0) {
    let backslashes = 0;
    for (let k = at - 1; text.charCodeAt(k) === 0x5c; k--) backslashes++;
    if (backslashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return text.length;
}
