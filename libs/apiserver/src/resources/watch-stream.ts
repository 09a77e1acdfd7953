import type { ServerResponse } from 'node:http';
import type { OutputFormat } from './negotiation';
import type { ResourceWatch, ResourceWatchEvent } from './registry-types';
import { addWarnings, protobufWatchFrame } from './response-writer';

export interface WatchStreamOptions {
  watch: ResourceWatch;
  format: OutputFormat;
  /** How long the stream stays open; it then ends cleanly and the client watches again. */
  timeoutMs: number;
  /** Aborted when the server stops: the stream ends cleanly. */
  stopSignal: AbortSignal;
  /** Turns an event's object into what the client asked to see (a Table, metadata only); identity otherwise. */
  view?: (event: ResourceWatchEvent) => unknown;
  warnings?: readonly string[];
}

const MAX_TIMER_MS = 2 ** 31 - 1;

// Objects from the watch cache are shared by every watcher and frozen: their JSON is made once.
const jsonOfObject = new WeakMap<object, string>();

function objectJson(object: unknown): string {
  if (typeof object !== 'object' || object === null || !Object.isFrozen(object)) return JSON.stringify(object);
  let text = jsonOfObject.get(object);
  if (text === undefined) {
    text = JSON.stringify(object);
    jsonOfObject.set(object, text);
  }
  return text;
}

/**
 * Streams a watch as chunked `{"type":..,"object":..}\n` documents (or length-prefixed protobuf
 * frames), one write per event so each reaches the client at once. It ends cleanly, with no error
 * event, when its time is up, the client goes away, the server stops, or the watch ends; a client
 * too slow to take the stream holds up only itself (the watch cuts it off).
 */
export async function streamWatch(res: ServerResponse, options: WatchStreamOptions): Promise<void> {
  const { watch, format } = options;
  const protobuf = format.encoding === 'protobuf';
  addWarnings(res, options.warnings ?? []);
  res.statusCode = 200;
  res.setHeader('Content-Type', format.streamContentType);
  res.setHeader('Cache-Control', 'no-cache, private');
  res.flushHeaders();

  let ended = false;
  const stop = (): void => {
    if (ended) return;
    ended = true;
    watch.stop();
  };
  // Node fires a timer longer than 2^31 - 1 ms at once; a watch asking for decades gets about 24 days.
  const timer = setTimeout(stop, Math.min(Math.max(options.timeoutMs, 0), MAX_TIMER_MS));
  const onAbort = (): void => stop();
  options.stopSignal.addEventListener('abort', onAbort);
  res.once('close', stop);
  if (options.stopSignal.aborted) stop();

  try {
    for await (const event of watch) {
      if (ended) break;
      const shown = options.view ? options.view(event) : event.object;
      const chunk = protobuf ? protobufWatchFrame({ type: event.type, object: shown }) : `{"type":"${event.type}","object":${objectJson(shown)}}\n`;
      if (!res.write(chunk)) await drained(res);
    }
  } finally {
    stop();
    clearTimeout(timer);
    options.stopSignal.removeEventListener('abort', onAbort);
    res.off('close', stop);
    if (!res.writableEnded && !res.destroyed) res.end();
  }
}

/** Resolves once the response can take more, or is gone. */
function drained(res: ServerResponse): Promise<void> {
  if (res.destroyed || res.writableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}
