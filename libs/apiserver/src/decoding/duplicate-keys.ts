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
      case 0x7b /* { */: {
        frame = { parent: frame, parentKey: pendingKey ?? childLabel(frame), keys: new Set(), index: -1, expectKey: true };
        pendingKey = undefined;
        i++;
        break;
      }
      case 0x5b /* [ */: {
        frame = { parent: frame, parentKey: pendingKey ?? childLabel(frame), keys: undefined, index: 0, expectKey: false };
        pendingKey = undefined;
        i++;
        break;
      }
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
        if (frame !== undefined && frame.keys !== undefined && frame.expectKey) {
          const raw = text.slice(i + 1, end);
          const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
          if (frame.keys.has(key)) found.push(pathOf(frame, key));
          else frame.keys.add(key);
          frame.expectKey = false;
          pendingKey = key;
        } else {
          pendingKey = undefined;
        }
        i = end + 1;
        break;
      }
      default:
        i++;
    }
  }
  return found;
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
