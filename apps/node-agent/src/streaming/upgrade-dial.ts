import { connect, type Socket } from 'node:net';
import type { IncomingMessage } from 'node:http';

/** Headers of an upgrade request that travel to the runtime's streaming server as they came. */
const FORWARDED = [
  'upgrade',
  'connection',
  'sec-websocket-key',
  'sec-websocket-version',
  'sec-websocket-protocol',
  'sec-websocket-extensions',
  'x-stream-protocol-version',
];

export interface Upgraded {
  socket: Socket;
  /** The streaming server's response head (status line and headers), as received. */
  head: Buffer;
  status: number;
  headers: Record<string, string>;
  /** Bytes after the head that already arrived. */
  rest: Buffer;
}

/**
 * Opens an upgrade to the runtime's streaming server (a plain HTTP URL on loopback from CRI Exec,
 * Attach or PortForward) and resolves with its answer once the response head is in.
 */
export function dialUpgrade(url: string, method: string, headers: Record<string, string>, timeoutMs = 10_000): Promise<Upgraded> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: target.hostname, port: Number(target.port || 80) });
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the runtime's streaming server did not answer in ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.once('connect', () => {
      const lines = [`${method} ${target.pathname}${target.search} HTTP/1.1`, `Host: ${target.host}`];
      for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) {
        if (received.length > 64 * 1024) socket.destroy(new Error('response head too large'));
        return;
      }
      clearTimeout(timer);
      socket.off('data', onData);
      socket.pause();
      const head = received.subarray(0, end + 4);
      const text = head.toString('latin1').split('\r\n');
      const status = Number(text[0].split(' ')[1] ?? 0);
      const parsed: Record<string, string> = {};
      for (const line of text.slice(1)) {
        const colon = line.indexOf(':');
        if (colon > 0) parsed[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ socket, head, status, headers: parsed, rest: received.subarray(end + 4) });
    };
    socket.on('data', onData);
  });
}

/** The upgrade headers of a client request, to pass on unchanged. */
export function forwardedUpgradeHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of FORWARDED) {
    const value = req.headers[name];
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
