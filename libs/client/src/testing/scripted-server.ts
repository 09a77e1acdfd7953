import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../clock';

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** A stand-in for a remote API server: answers each request with the next handler of a script. */
export class ScriptedServer {
  /** Each request as it arrived: `body` as UTF-8 text, `raw` its bytes (a protobuf body). */
  readonly requests: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string; raw: Buffer }> = [];
  private handlers: Handler[] = [];
  private fallback: Handler = (_req, res) => res.writeHead(500).end('no handler');
  server: Server = createServer((req, res) => this.handle(req, res));

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  script(...handlers: Handler[]): void {
    this.handlers.push(...handlers);
  }

  always(handler: Handler): void {
    this.fallback = handler;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const body = raw.toString('utf8');
      this.requests.push({ method: req.method!, url: req.url!, headers: req.headers, body, raw });
      (this.handlers.shift() ?? this.fallback)(req, res, body);
    });
  }
}

export const json =
  (code: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(code, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(body));
  };
export const status = (code: number, reason: string, message = reason) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  reason,
  message,
  code,
});

/** Records the waits instead of sleeping them; time moves by what was waited. */
export class RecordingClock implements Clock {
  t = 0;
  waits: number[] = [];
  now(): number {
    return this.t;
  }
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    this.waits.push(ms);
    this.t += ms;
  }
}
