import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { watchFrame } from './encoded-json';
import type { OutputFormat } from './negotiation';
import type { ResourceWatchEvent } from '../../registry/types';
import { kubernetesWatchFrame, protobufWatchFrame } from './write-body';
import type { WatchStreamOptions } from './watch-stream';

/** Bytes a WebSocket watch may have waiting before it waits for its socket to drain. */
const WEBSOCKET_WRITE_BATCH_BYTES = 1024 * 1024;
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Largest message read from a watching client (they send nothing a watch reads). */
const MAX_CLIENT_MESSAGE_BYTES = 64 * 1024;

// One server for every WebSocket watch: it only performs handshakes; each connection is then its own.
const handshakes = new WebSocketServer({
  noServer: true,
  perMessageDeflate: false,
  maxPayload: MAX_CLIENT_MESSAGE_BYTES,
  // As Kubernetes' watch handler: it speaks one framing whatever the name; it answers with the first offered.
  handleProtocols: (protocols) => protocols.values().next().value ?? false,
});

/**
 * Takes a WebSocket handshake over: resolves with the open socket once the answer is written, or
 * undefined when the handshake was refused (ws answers a malformed one with a 400 and closes).
 */
export function acceptWebSocket(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<WebSocket | undefined> {
  return new Promise((resolve) => {
    const refused = (): void => resolve(undefined);
    socket.once('close', refused);
    handshakes.handleUpgrade(req, socket, head, (ws) => {
      socket.off('close', refused);
      resolve(ws);
    });
  });
}

/**
 * A watch over WebSocket, as Kubernetes serves one to a browser (which cannot read a chunked response
 * without holding one of its few connections per origin): each event is one message, the JSON
 * `{"type":..,"object":..}` document as a text frame, or one protobuf event (without the stream's
 * length prefix) as a binary frame. The watch ends, and the socket closes normally, when its time is
 * up, the server stops or the watch ends; a client closing its end stops the watch.
 */
export async function streamWatchOverWebSocket(ws: WebSocket | undefined, options: WatchStreamOptions): Promise<void> {
  const { watch, format } = options;
  if (ws === undefined) {
    watch.stop();
    return;
  }
  const protobuf = format.encoding === 'protobuf' || format.encoding === 'kubernetes-protobuf';
  let ended = false;
  const stop = (): void => {
    if (ended) return;
    ended = true;
    watch.stop();
  };
  const timer = setTimeout(stop, Math.min(Math.max(options.timeoutMs, 0), MAX_TIMER_MS));
  const onAbort = (): void => stop();
  options.stopSignal.addEventListener('abort', onAbort);
  ws.on('close', stop);
  ws.on('error', stop);
  // What the client sends is read and dropped, so that its pings and closes are seen.
  ws.on('message', () => undefined);
  if (options.stopSignal.aborted) stop();
  const events = watch[Symbol.asyncIterator]();
  let done = false;
  try {
    while (!ended) {
      const next = await events.next();
      if (next.done === true) {
        done = true;
        break;
      }
      if (ended) break;
      const message = encode(next.value, options.view, format, protobuf);
      ws.send(message.data, { binary: message.binary });
      if (ws.bufferedAmount >= WEBSOCKET_WRITE_BATCH_BYTES) await drained(ws);
    }
  } finally {
    stop();
    if (!done) await events.return?.();
    clearTimeout(timer);
    options.stopSignal.removeEventListener('abort', onAbort);
    if (ws.readyState === ws.OPEN) ws.close(1000);
  }
}

function encode(
  event: ResourceWatchEvent,
  view: ((event: ResourceWatchEvent) => unknown) | undefined,
  format: OutputFormat,
  protobuf: boolean,
): { data: Buffer; binary: boolean } {
  const shown = view ? view(event) : event.object;
  if (protobuf) {
    const frame = (format.encoding === 'kubernetes-protobuf' ? kubernetesWatchFrame : protobufWatchFrame)({ type: event.type, object: shown });
    return { data: frame.subarray(4), binary: true };
  }
  const document = watchFrame(event.type, shown).document;
  // The document ends in a newline a stream needs and a message does not.
  return { data: document.subarray(0, document.length - 1), binary: false };
}

/** Resolves once the socket took what waits, or closed. */
function drained(ws: WebSocket): Promise<void> {
  return new Promise((resolve) => {
    const check = (): void => {
      if (ws.readyState !== ws.OPEN || ws.bufferedAmount < WEBSOCKET_WRITE_BATCH_BYTES / 2) {
        clearInterval(poll);
        ws.off('close', check);
        resolve();
      }
    };
    // ws says nothing when its buffer empties; its socket's drain is not public, so look often.
    const poll = setInterval(check, 10);
    ws.on('close', check);
  });
}
