import { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { watchFrame, type WatchFrame } from './encoded-json';
import type { OutputFormat } from './negotiation';
import type { ResourceWatch, ResourceWatchEvent } from './registry-types';
import { addWarnings, kubernetesWatchChunk, protobufWatchFrame } from './response-writer';

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

/**
 * How many bytes a watch may have waiting on its socket before it waits for the socket to drain. Far
 * above the socket's own mark (16 KiB): a watch's initial state, thousands of events ready at once, then
 * leaves in writes of about this size instead of one per 16 KiB, each a TLS write and a trip through
 * the event loop. The waiting bytes are mostly frames shared with the other watchers and the cache, and
 * a client that does not read still holds up only itself: its events wait in the watch's bounded queue.
 */
const WATCH_WRITE_BATCH_BYTES = 1024 * 1024;

/**
 * Streams a watch as chunked `{"type":..,"object":..}\n` documents (or length-prefixed protobuf
 * frames). An event of a shared cache object is encoded once for all its watchers (JSON or
 * Kubernetes' protobuf alike): each writes the same framed bytes straight to its socket, and the
 * events of one dispatch go out in one TLS write (the socket is corked until the tick ends). A live
 * event of a watch with nothing queued is written
 * during the cache's dispatch itself, without the promise hops of a pull. It ends cleanly, with no error
 * event, when its time is up, the client goes away, the server stops, or the watch ends; a client
 * too slow to take the stream holds up only itself (the watch cuts it off).
 */
export async function streamWatch(res: ServerResponse, options: WatchStreamOptions): Promise<void> {
  const { watch, format } = options;
  // JSON lines and Kubernetes' protobuf frames are shared between watchers and written in batches;
  // the envelope of JSON events (the product's own protobuf type) is written event by event.
  const frameOf: ((type: string, object: unknown) => WatchFrame) | undefined =
    format.encoding === 'kubernetes-protobuf' ? kubernetesWatchChunk : format.encoding === 'protobuf' ? undefined : watchFrame;
  addWarnings(res, options.warnings ?? []);
  res.statusCode = 200;
  res.setHeader('Content-Type', format.streamContentType);
  res.setHeader('Cache-Control', 'no-cache, private');
  res.flushHeaders();
  // Decided once: a response that owns its connection keeps it to the end.
  const socket = frameOf === undefined ? undefined : directSocket(res);

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

  // Live events of a plain watch are written as the cache dispatches them, while the watch has
  // nothing else waiting; the loop below takes the rest (initial events, a backlog) in order.
  const direct = socket !== undefined && frameOf !== undefined && options.view === undefined ? watch.deliverDirectly?.bind(watch) : undefined;
  const take = (event: ResourceWatchEvent): boolean => {
    if (ended || socket === undefined || socket.destroyed || frameOf === undefined) return false;
    return writeCorked(socket, frameOf(event.type, event.object).chunk) || socket.writableLength < WATCH_WRITE_BATCH_BYTES;
  };
  const events = watch[Symbol.asyncIterator]();
  let done = false;
  try {
    while (!ended) {
      direct?.(take);
      const next = await events.next();
      if (next.done === true) {
        done = true;
        break;
      }
      if (ended) break;
      const event = next.value;
      const shown = options.view ? options.view(event) : event.object;
      if (frameOf === undefined) {
        if (!res.write(protobufWatchFrame({ type: event.type, object: shown }))) await drained(res);
        continue;
      }
      const frame = frameOf(event.type, shown);
      if (socket === undefined || socket.destroyed) {
        if (!res.write(frame.document)) await drained(res);
      } else if (!writeCorked(socket, frame.chunk) && socket.writableLength >= WATCH_WRITE_BATCH_BYTES) await socketDrained(socket, res);
    }
  } finally {
    stop();
    // As `for await` does when a loop is left early.
    if (!done) await events.return?.();
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

interface OutgoingInternals {
  chunkedEncoding?: boolean;
  _hasBody?: boolean;
}

/**
 * The socket an event's chunk-framed bytes can go to directly: the response streams chunked, owns the
 * connection now, and nothing wraps its writes (the audit filter records through `write`).
 */
function directSocket(res: ServerResponse): Socket | undefined {
  const internals = res as ServerResponse & OutgoingInternals;
  if (internals.chunkedEncoding !== true || internals._hasBody === false || res.write !== ServerResponse.prototype.write) return undefined;
  const socket = res.socket;
  if (socket === null || (socket as Socket & { _httpMessage?: unknown })._httpMessage !== res) return undefined;
  return socket;
}

// Sockets corked in this tick: one tick callback uncorks them all, not one callback per socket.
let corked: Socket[] = [];

function uncorkAll(): void {
  const sockets = corked;
  corked = [];
  for (const socket of sockets) socket.uncork();
}

/** Writes with the socket corked to the end of the tick, so one dispatch's events leave in one write. */
function writeCorked(socket: Socket, bytes: Buffer): boolean {
  if (socket.writableCorked === 0) {
    socket.cork();
    if (corked.push(socket) === 1) process.nextTick(uncorkAll);
  }
  return socket.write(bytes);
}

/** Resolves once the socket can take more, or the response is gone. */
function socketDrained(socket: Socket, res: ServerResponse): Promise<void> {
  if (socket.destroyed || res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      socket.off('drain', done);
      res.off('close', done);
      resolve();
    };
    socket.once('drain', done);
    res.once('close', done);
  });
}
