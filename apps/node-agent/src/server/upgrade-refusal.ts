import type { Duplex } from 'node:stream';

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
};

/**
 * Answers an upgrade request (exec, attach, port-forward) that is refused with a plain HTTP
 * response on its socket, as the kubelet does before any stream protocol is spoken.
 */
export function rejectUpgrade(socket: Duplex, code: number, message: string): void {
  const reason = REASONS[code] ?? 'Internal Server Error';
  const body = `${message}\n`;
  socket.end(
    `HTTP/1.1 ${code} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
