import type { IncomingMessage } from 'node:http';
import { StatusError, type WatchEvent, type WatchEventType, isRecord } from '@svc/machinery';
import { JsonStreamDecoder, JsonStreamError } from './json-stream-decoder';
import { ProtobufStreamDecoder, ProtobufStreamError } from './protobuf-stream-decoder';
import { isProtobufMediaType } from './wire-codec';
import { errorMessage, statusErrorFromResponse, TransportError, undecodableResponse } from './response-errors';

export type { WatchEvent, WatchEventType };

// The event types a watch delivers; an `ERROR` event is thrown as a StatusError instead.
const EVENT_TYPES: ReadonlySet<string> = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK']);

/** Turns one decoded document into an event; an ERROR event becomes the StatusError it carries. */
export function toWatchEvent<T>(doc: unknown): WatchEvent<T> {
  if (!isRecord(doc) || typeof doc.type !== 'string' || !isRecord(doc.object)) {
    throw undecodableResponse(200, 'a watch event must be {type, object}', JSON.stringify(doc));
  }
  if (doc.type === 'ERROR') {
    const status = doc.object;
    throw statusErrorFromResponse(typeof status.code === 'number' && status.code > 0 ? status.code : 500, JSON.stringify(status));
  }
  if (!EVENT_TYPES.has(doc.type)) throw undecodableResponse(200, `unknown watch event type ${JSON.stringify(doc.type)}`, JSON.stringify(doc));
  return { type: doc.type as WatchEventType, object: doc.object as T };
}

/** Splits a stream's chunks into event documents: JSON lines, or length-prefixed protobuf frames. */
interface StreamDecoder {
  push(chunk: Buffer | string): unknown[];
  readonly pending: boolean;
}

/** The decoder of a watch answer, chosen by its Content-Type (`...;stream=watch` for protobuf). */
function streamDecoderFor(response: IncomingMessage): StreamDecoder {
  if (isProtobufMediaType(response.headers?.['content-type'])) {
    const frames = new ProtobufStreamDecoder();
    return {
      push: (chunk) => frames.push(chunk as Buffer),
      get pending() {
        return frames.pending;
      },
    };
  }
  response.setEncoding('utf8');
  const lines = new JsonStreamDecoder();
  return {
    push: (chunk) => lines.push(chunk as string),
    get pending() {
      return lines.pending;
    },
  };
}

/**
 * One open watch (JSON or protobuf, by the answer's Content-Type): an async iterable of typed
 * events decoded as the chunks arrive: ADDED, MODIFIED, DELETED and BOOKMARK (whose object only
 * carries a meaningful `metadata.resourceVersion`). The iteration
 * ends when the server closes the stream (its `timeoutSeconds`), when `stop()` is called or the
 * call's signal aborts; it throws a StatusError for an `ERROR` event (410 Expired: list again) and
 * a TransportError when the connection breaks. It can be iterated once.
 */
export class Watch<T> implements AsyncIterable<WatchEvent<T>> {
  private stoppedFlag = false;
  private iterated = false;
  private lastVersion?: string;

  constructor(
    private readonly response: IncomingMessage,
    private readonly describe: string,
    signal?: AbortSignal,
  ) {
    if (signal) {
      const onAbort = () => this.stop();
      signal.addEventListener('abort', onAbort, { once: true });
      response.once('close', () => signal.removeEventListener('abort', onAbort));
    }
  }

  /** Closes the stream; a pending or later `next()` finishes the iteration. */
  stop(): void {
    this.stoppedFlag = true;
    this.response.destroy();
  }

  get stopped(): boolean {
    return this.stoppedFlag;
  }

  /** The resourceVersion of the last event delivered (bookmarks included): where to resume. */
  get resourceVersion(): string | undefined {
    return this.lastVersion;
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    this.claim();
    return this.events();
  }

  /**
   * The same events, as arrays of the events each chunk of the stream completed (never empty). A
   * consumer that handles events synchronously (an informer) then pays one turn of the event loop
   * per chunk instead of several per event. Either this or the event iteration, once.
   */
  batches(): AsyncIterable<WatchEvent<T>[]> {
    this.claim();
    const batches = this.trackedBatches();
    return { [Symbol.asyncIterator]: () => batches };
  }

  private async *trackedBatches(): AsyncGenerator<WatchEvent<T>[]> {
    for await (const batch of this.decodedBatches()) {
      this.lastVersion = versionOf(batch[batch.length - 1]) ?? this.lastVersion;
      yield batch;
      if (this.stoppedFlag) return;
    }
  }

  private claim(): void {
    if (this.iterated) throw new Error('a watch can be iterated only once');
    this.iterated = true;
  }

  private async *events(): AsyncGenerator<WatchEvent<T>> {
    for await (const batch of this.decodedBatches()) {
      for (const event of batch) {
        this.lastVersion = versionOf(event) ?? this.lastVersion;
        yield event;
        if (this.stoppedFlag) return;
      }
    }
  }

  private async *decodedBatches(): AsyncGenerator<WatchEvent<T>[]> {
    const decoder = streamDecoderFor(this.response);
    try {
      for await (const chunk of this.response) {
        const docs = decoder.push(chunk as Buffer | string);
        if (docs.length === 0) continue;
        const batch: WatchEvent<T>[] = [];
        let failure: Error | undefined;
        for (const doc of docs) {
          try {
            batch.push(toWatchEvent<T>(doc));
          } catch (err) {
            failure = err instanceof Error ? err : new Error(String(err));
            break;
          }
        }
        if (batch.length > 0) yield batch;
        // The events before an ERROR event are delivered first, as they would be one by one.
        if (failure !== undefined) throw failure;
        if (this.stoppedFlag) return;
      }
    } catch (err) {
      if (this.stoppedFlag) return;
      if (err instanceof StatusError) throw err;
      if (err instanceof JsonStreamError || err instanceof ProtobufStreamError) throw undecodableResponse(200, err.message, '');
      throw new TransportError('connection', `the watch of ${this.describe} broke: ${errorMessage(err)}`, err);
    } finally {
      this.response.destroy();
    }
    if (decoder.pending && !this.stoppedFlag) {
      throw new TransportError('connection', `the watch of ${this.describe} ended inside an event`);
    }
  }
}

function versionOf(event: WatchEvent<unknown>): string | undefined {
  const version = (event.object as { metadata?: { resourceVersion?: unknown } }).metadata?.resourceVersion;
  return typeof version === 'string' && version ? version : undefined;
}
