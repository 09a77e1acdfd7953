import { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { watchFrame, type WatchFrame } from './encoded-json';
import type { OutputFormat } from './negotiation';
import type { ResourceWatch, ResourceWatchEvent } from '../../registry/types';
import type { ResponseWriter } from '../../serving/response-writer';
import { kubernetesWatchChunk, protobufWatchFrame } from './write-body';

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
 * event of a watch with nothing queued is written during the cache's dispatch itself, without the
 * promise hops of a pull. It ends cleanly, with no error event, when its time is up, the client goes
 * away, the server stops, or the watch ends; a client too slow to take the stream holds up only
 * itself (the watch cuts it off).
 */
export async function streamWatch(writer: ResponseWriter, options: WatchStreamOptions): Promise<void> {
  writer.addWarnings(options.warnings ?? []);
  const res = writer.stream();
  if (res === undefined) {
    options.watch.stop();
    return;
  }
  res.statusCode = 200;
  res.setHeader('Content-Type', options.format.streamContentType);
  res.setHeader('Cache-Control', 'no-cache, private');
  res.flushHeaders();
  const stream = new WatchStream(res, options);
  try {
    await stream.pump();
  } finally {
    await stream.close();
  }
}

/** One watch on its way to one client: what ends it, and how its events are written. */
class WatchStream {
  private ended = false;
  private done = false;
  private readonly timer: NodeJS.Timeout;
  private readonly events: AsyncIterator<ResourceWatchEvent>;
  /**
   * JSON lines and Kubernetes' protobuf frames are shared between watchers and written in batches;
   * the envelope of JSON events (the product's own protobuf type) is written event by event.
   */
  private readonly frameOf: ((type: string, object: unknown) => WatchFrame) | undefined;
  /** Decided once: a response that owns its connection keeps it to the end. */
  private readonly socket: Socket | undefined;
  readonly stop = (): void => {
    if (this.ended) return;
    this.ended = true;
    this.options.watch.stop();
  };

  constructor(
    private readonly res: ServerResponse,
    private readonly options: WatchStreamOptions,
  ) {
    const encoding = options.format.encoding;
    this.frameOf = encoding === 'kubernetes-protobuf' ? kubernetesWatchChunk : encoding === 'protobuf' ? undefined : watchFrame;
    this.socket = this.frameOf === undefined ? undefined : directSocket(res);
    // Node fires a timer longer than 2^31 - 1 ms at once; a watch asking for decades gets about 24 days.
    this.timer = setTimeout(this.stop, Math.min(Math.max(options.timeoutMs, 0), MAX_TIMER_MS));
    options.stopSignal.addEventListener('abort', this.stop);
    res.once('close', this.stop);
    if (options.stopSignal.aborted) this.stop();
    this.events = options.watch[Symbol.asyncIterator]();
  }

  /** Writes events until the watch ends or is stopped. */
  async pump(): Promise<void> {
    // Live events of a plain watch are written as the cache dispatches them, while the watch has
    // nothing else waiting; the loop takes the rest (initial events, a backlog) in order.
    const { socket, options, frameOf } = this;
    const direct = socket !== undefined && frameOf !== undefined && options.view === undefined ? options.watch.deliverDirectly?.bind(options.watch) : undefined;
    const take = (event: ResourceWatchEvent): boolean => {
      if (this.ended || socket === undefined || socket.destroyed || frameOf === undefined) return false;
      return writeCorked(socket, frameOf(event.type, event.object).chunk) || socket.writableLength < WATCH_WRITE_BATCH_BYTES;
    };
    while (!this.ended) {
      direct?.(take);
      const next = await this.events.next();
      if (next.done === true) {
        this.done = true;
        return;
      }
      if (this.ended) return;
      await this.write(next.value);
    }
  }

  /** One event, framed as the stream is; waits while the socket or response cannot take more. */
  private async write(event: ResourceWatchEvent): Promise<void> {
    const { res, socket, frameOf } = this;
    const shown = this.options.view ? this.options.view(event) : event.object;
    if (frameOf === undefined) {
      if (!res.write(protobufWatchFrame({ type: event.type, object: shown }))) await drained(res);
      return;
    }
    const frame = frameOf(event.type, shown);
    if (socket === undefined || socket.destroyed) {
      if (!res.write(frame.document)) await drained(res);
    } else if (!writeCorked(socket, frame.chunk) && socket.writableLength >= WATCH_WRITE_BATCH_BYTES) await socketDrained(socket, res);
  }

  async close(): Promise<void> {
    this.stop();
    // As `for await` does when a loop is left early.
    if (!this.done) await this.events.return?.();
    clearTimeout(this.timer);
    this.options.stopSignal.removeEventListener('abort', this.stop);
    this.res.off('close', this.stop);
    if (!this.res.writableEnded && !this.res.destroyed) this.res.end();
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
