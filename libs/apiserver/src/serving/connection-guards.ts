import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { statusForCode } from '../status/status';

// The first byte of every TLS connection: a handshake record.
const TLS_HANDSHAKE_RECORD = 0x16;
// A connection that sends nothing is closed after this long, as a TLS handshake would be.
const FIRST_BYTE_TIMEOUT_MS = 120_000;
// How long a refused connection is read from before it is closed.
const LINGER_MS = 1000;
// Go's answer to plain HTTP on a TLS port, which clients and people recognise.
const PLAIN_HTTP_ANSWER = 'HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n';

/**
 * Answers plain HTTP on the HTTPS port with Go's `400 Client sent an HTTP request to an HTTPS server.`
 * instead of dropping the connection: the first byte of each connection is read before TLS sees it
 * and put back (Node's TLS socket takes bytes already read from the socket it wraps).
 */
export function refusePlainHttp(server: HttpsServer): void {
  const tlsListeners = server.listeners('connection') as Array<(socket: Socket) => void>;
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    socket.setTimeout(FIRST_BYTE_TIMEOUT_MS, () => socket.destroy());
    socket.once('data', (first: Buffer) => {
      socket.pause();
      socket.setTimeout(0);
      if (first[0] !== TLS_HANDSHAKE_RECORD && looksLikeHttp(first)) {
        socket.end(PLAIN_HTTP_ANSWER);
        return;
      }
      // Left paused: the TLS socket reads what is buffered here, then reads the connection itself.
      socket.unshift(first);
      for (const listener of tlsListeners) listener.call(server, socket);
    });
  });
}

/** An HTTP/1 request line starts with an upper-case method name. */
function looksLikeHttp(first: Buffer): boolean {
  return first.length > 0 && first[0] >= 0x41 && first[0] <= 0x5a;
}

/**
 * Answers a request Node's HTTP parser refuses (headers over its limit, a malformed request line) with
 * a Status body instead of an empty one: 431 for headers too large, 400 otherwise.
 */
export function answerClientErrors(server: HttpsServer): void {
  const answered = new WeakSet<Duplex>();
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // The parser keeps failing on whatever else arrives; the first failure is the one answered.
    if (answered.has(socket)) return;
    answered.add(socket);
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const { code, message } = answerFor(error.code);
    const body = JSON.stringify(statusForCode(code, message));
    // The rest of what the client sends is read and dropped until it closes (or a second passes):
    // closing with unread bytes would reset the connection and lose the answer, as Go avoids too.
    socket.removeAllListeners('data');
    socket.on('data', () => undefined);
    socket.resume();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
    socket.end(
      `HTTP/1.1 ${code} ${STATUS_CODES[code] ?? 'Bad Request'}\r\n` +
        'Content-Type: application/json\r\nConnection: close\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  });
}

/** The answer to a request the parser refused, by the parser's error code. */
function answerFor(errorCode: string | undefined): { code: number; message: string } {
  switch (errorCode) {
    case 'HPE_HEADER_OVERFLOW':
      return { code: 431, message: 'Request Header Fields Too Large: the request line and headers are larger than the server reads' };
    case 'HPE_INVALID_METHOD':
      // A method Node's parser does not know; Go's server hands it on and Kubernetes answers 405.
      return { code: 405, message: 'the server does not allow this method on the requested resource' };
    case 'HPE_TIMEOUT':
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 408, message: 'the request was not received in time' };
    default:
      return { code: 400, message: `the request could not be parsed: ${errorCode ?? 'malformed request'}` };
  }
}

/** Past this much written and not yet taken by the client, Node's own pause stands (see keepParsingBehindEndedResponses). */
const UNREAD_RESPONSE_LIMIT = 64 * 1024 * 1024;

/** Node's per-connection state that its HTTP server keeps on the socket: set when it stops reading for backpressure. */
interface PausableSocket extends Socket {
  _paused?: boolean;
}

/**
 * Keeps a keep-alive connection readable when its earlier responses are all written. Node's HTTP server
 * stops reading a connection whose socket still holds unsent response bytes when a new request's headers
 * arrive (flood protection against pipelining), and pauses its parser; but the TLS layer goes on handing
 * over the request body already received, which the paused parser refuses (`HPE_PAUSED`), so the request
 * fails with a 400 and the connection closes. kubectl meets this applying large objects one after another
 * (a CRD's PATCH right after a large answer). A pause is only lifted when every earlier response on the
 * connection has ended and what is left unread by the client is bounded, so a client that pipelines
 * requests without reading still gets Node's backpressure.
 */
export function keepParsingBehindEndedResponses(server: HttpsServer): void {
  const lastResponse = new WeakMap<Duplex, ServerResponse>();
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket as PausableSocket;
    const previous = lastResponse.get(socket);
    lastResponse.set(socket, res);
    if (socket._paused === true && (previous === undefined || previous.writableEnded) && socket.writableLength <= UNREAD_RESPONSE_LIMIT) {
      socket._paused = false;
      socket.resume();
    }
  });
}
