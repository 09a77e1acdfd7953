/**
 * JSON bytes of the objects the watch cache shares. Those objects are deeply frozen and handed to every
 * reader and watcher, so their encoding never changes: it is made once, on first use, and every GET,
 * LIST and watch event that carries the object writes the same bytes. Objects that are not frozen
 * (a copy made for another group name's apiVersion, an object read from the store) are encoded each time.
 */
// The JSON of a shared object with a newline after it: a GET writes it whole, a list or an event its JSON part.
const jsonLineOf = new WeakMap<object, Buffer>();
const watchFramesOf = new WeakMap<object, Map<string, WatchFrame>>();

function shared(value: unknown): value is object {
  return typeof value === 'object' && value !== null && Object.isFrozen(value);
}

/** The object's compact JSON and a newline, as a response body of one object is written. */
export function jsonLine(object: unknown): Buffer {
  if (!shared(object)) return Buffer.from(`${JSON.stringify(object)}\n`);
  let line = jsonLineOf.get(object);
  if (line === undefined) {
    line = Buffer.from(`${JSON.stringify(object)}\n`);
    jsonLineOf.set(object, line);
  }
  return line;
}

/** The object's compact JSON, as `JSON.stringify` writes it. */
export function jsonBytes(object: unknown): Buffer {
  const line = jsonLine(object);
  return line.subarray(0, line.length - 1);
}

/** One watch event as the JSON stream carries it, with its HTTP/1.1 chunk framing around it. */
export interface WatchFrame {
  /** `{"type":..,"object":..}\n`. */
  readonly document: Buffer;
  /** The document as one chunk of a chunked response: length line, document, CRLF. */
  readonly chunk: Buffer;
}

/** The frame of `{type, object}`; the same bytes for every watcher of a shared object. */
export function watchFrame(type: string, object: unknown): WatchFrame {
  if (!shared(object)) return frameOf(type, object);
  let frames = watchFramesOf.get(object);
  if (frames === undefined) watchFramesOf.set(object, (frames = new Map<string, WatchFrame>()));
  let frame = frames.get(type);
  if (frame === undefined) frames.set(type, (frame = frameOf(type, object)));
  return frame;
}

/** A watch document with its HTTP/1.1 chunk framing: length line, document, CRLF. */
export function chunkedFrame(document: Buffer): WatchFrame {
  const lengthLine = `${document.length.toString(16)}\r\n`;
  const chunk = Buffer.allocUnsafe(lengthLine.length + document.length + 2);
  let at = chunk.write(lengthLine, 0, 'latin1');
  at += document.copy(chunk, at);
  chunk.write('\r\n', at, 'latin1');
  return { document: chunk.subarray(lengthLine.length, lengthLine.length + document.length), chunk };
}

function frameOf(type: string, object: unknown): WatchFrame {
  const head = `{"type":${JSON.stringify(type)},"object":`;
  const json = jsonBytes(object);
  const documentLength = Buffer.byteLength(head) + json.length + 2;
  const lengthLine = `${documentLength.toString(16)}\r\n`;
  const chunk = Buffer.allocUnsafe(lengthLine.length + documentLength + 2);
  let at = chunk.write(lengthLine, 0, 'latin1');
  const start = at;
  at += chunk.write(head, at);
  at += json.copy(chunk, at);
  at += chunk.write('}\n\r\n', at, 'latin1');
  return { document: chunk.subarray(start, at - 2), chunk };
}

/**
 * A list's JSON, `{"kind":..,"apiVersion":..,"metadata":..,"items":[..]}\n`, the same bytes
 * `JSON.stringify` writes, made of the items' own encodings (shared ones are not encoded again),
 * copied once into a buffer of the exact size (no view or part per item: a list of 10,000 items made
 * 20,000 small objects before).
 */
export function listJsonBytes(
  head: { kind: string; apiVersion: string; metadata: unknown },
  items: readonly unknown[],
  allocate: (size: number) => Buffer = (size) => Buffer.allocUnsafe(size),
): Buffer {
  const start = `{"kind":${JSON.stringify(head.kind)},"apiVersion":${JSON.stringify(head.apiVersion)},"metadata":${JSON.stringify(head.metadata)},"items":[`;
  const lines: Buffer[] = new Array<Buffer>(items.length);
  let size = Buffer.byteLength(start) + Math.max(0, items.length - 1) + LIST_END.length;
  for (let i = 0; i < items.length; i++) {
    const line = jsonLine(items[i]);
    lines[i] = line;
    size += line.length - 1;
  }
  const out = allocate(size);
  let at = out.write(start, 0);
  for (let i = 0; i < lines.length; i++) {
    if (i > 0) out[at++] = COMMA;
    const line = lines[i];
    // The line without its newline.
    at += line.copy(out, at, 0, line.length - 1);
  }
  LIST_END.copy(out, at);
  return out;
}

const COMMA = 0x2c;
const LIST_END = Buffer.from(']}\n');
