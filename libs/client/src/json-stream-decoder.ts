/** The stream held something that is not a sequence of JSON objects. */
export class JsonStreamError extends Error {
  override readonly name = 'JsonStreamError';
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

const NOT_JSON = Symbol('not JSON');

/** The value of `text`, or NOT_JSON: the fast path tries a line and falls back to scanning it. */
function parseOrNotJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * Splits a text stream into JSON documents whatever the chunking: a chunk may end inside a
 * document (even inside a string or an escape) or hold several. Documents are found by bracket
 * depth outside strings, so newline-delimited, concatenated and pretty-printed streams all work,
 * as Go's json.Decoder reads a Kubernetes watch. Text must be decoded already (multi-byte
 * characters split across chunks are the caller's decoder's job).
 *
 * A document that starts a line and ends before its newline (a watch server writes one event per
 * line) is handed to JSON.parse whole, without a scan of its characters: scanning in JavaScript cost
 * as much as the parse itself. A line that does not parse alone is scanned, so concatenated and
 * pretty-printed streams keep working, and invalid JSON still fails with the scanner's error.
 */
export class JsonStreamDecoder {
  private buffer = '';
  private scanned = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Offset in `buffer` before which the line fast path already failed (a line holding several documents). */
  private scanOnlyBefore = 0;

  /** Adds a chunk and returns the values of the documents it completed, in order. */
  push(chunk: string): unknown[] {
    this.buffer += chunk;
    const out: unknown[] = [];
    const buf = this.buffer;
    let start = 0;
    let i = this.scanned;
    for (; i < buf.length; i++) {
      const c = buf.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) this.inString = false;
        continue;
      }
      if (this.depth === 0) {
        if (isSpace(c)) {
          start = i + 1;
          continue;
        }
        if (c !== OPEN_BRACE && c !== OPEN_BRACKET) {
          throw new JsonStreamError(`unexpected ${JSON.stringify(buf[i])} between documents of the stream`);
        }
        start = i;
        if (i >= this.scanOnlyBefore) {
          const newline = buf.indexOf('\n', i);
          if (newline >= 0) {
            const value = parseOrNotJson(buf.slice(i, newline));
            if (value !== NOT_JSON) {
              out.push(value);
              start = newline + 1;
              i = newline;
              continue;
            }
            this.scanOnlyBefore = newline + 1;
          }
        }
      }
      if (c === QUOTE) this.inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) this.depth++;
      else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        this.depth--;
        if (this.depth === 0) {
          const text = buf.slice(start, i + 1);
          try {
            out.push(JSON.parse(text));
          } catch (err) {
            throw new JsonStreamError(`a document of the stream is not valid JSON: ${(err as Error).message}`);
          }
          start = i + 1;
        }
      }
    }
    this.buffer = buf.slice(start);
    this.scanned = i - start;
    this.scanOnlyBefore = Math.max(0, this.scanOnlyBefore - start);
    return out;
  }

  /** Whether a document was begun and not finished (the stream ended inside it). */
  get pending(): boolean {
    return this.buffer.trim().length > 0;
  }
}
