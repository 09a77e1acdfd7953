import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Agent, request as httpsRequest } from 'node:https';

/** One request as it goes on the wire. */
export interface WireRequest {
  method: string;
  /** `path?query`, sent as is. */
  target: string;
  /** Sent in this order, repeated names kept. */
  headers: Array<[string, string]>;
  body?: Buffer;
}

/** What came back: a status, or `error` when no complete answer did (reset, timeout, refused). */
export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Time from sending to the end of the answer (or of the failure). */
  ms: number;
  error?: string;
}

/** A watch answer: the status and headers at once, the end of the stream later. */
export interface WatchAnswer extends Answer {
  /** Resolves when the stream ends (or is cut at the deadline): its whole body and when it ended. */
  ended: Promise<{ body: Buffer; endedAt: number; cutAtDeadline: boolean; error?: string }>;
  /** Closes the stream from this side (used only when the run is torn down). */
  abort(): void;
}

const RETRYABLE = new Set(['ECONNRESET', 'EPIPE']);

/**
 * The fuzzer's HTTPS client: any method, path and header list (Node's own checks aside), every
 * failure returned as data rather than thrown, a hard deadline on every exchange. Keep-alive sockets
 * are reused; a reset on a reused socket is the well-known keep-alive race and is retried once on a
 * fresh connection, so a reset is reported only when a fresh connection gets one.
 */
export class FuzzHttp {
  private readonly agent: Agent;
  private readonly host: string;
  private readonly hostname: string;
  private readonly port: number;

  constructor(
    readonly baseUrl: string,
    private readonly ca: string,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: 4, ca });
    const url = new URL(baseUrl);
    this.host = url.host;
    this.hostname = url.hostname;
    this.port = Number(url.port);
  }

  async send(request: WireRequest, timeoutMs: number): Promise<Answer> {
    const first = await this.exchange(request, timeoutMs, this.agent);
    if (first.reused && first.answer.error !== undefined && RETRYABLE.has(first.code ?? '')) {
      return (await this.exchange(request, timeoutMs, false)).answer;
    }
    return first.answer;
  }

  /**
   * Opens a watch on its own connection. Resolves once the status line arrived (or failed, or
   * `deadlineMs` passed); `ended` settles when the server ends the stream, or at the deadline, when the
   * stream is cut and `cutAtDeadline` is set.
   */
  openWatch(request: WireRequest, deadlineMs: number): Promise<WatchAnswer> {
    const started = Date.now();
    return new Promise((resolve) => {
      let settled = false;
      const chunks: Buffer[] = [];
      let endResolve: (value: { body: Buffer; endedAt: number; cutAtDeadline: boolean; error?: string }) => void = () => undefined;
      const ended = new Promise<{ body: Buffer; endedAt: number; cutAtDeadline: boolean; error?: string }>((r) => (endResolve = r));
      let finished = false;
      const finish = (cutAtDeadline: boolean, error?: string) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        endResolve({ body: Buffer.concat(chunks), endedAt: Date.now(), cutAtDeadline, error });
      };
      const req = httpsRequest(
        // The path goes as is: a URL string would have `.` and `..` segments resolved before sending.
        {
          hostname: this.hostname,
          port: this.port,
          path: request.target,
          method: request.method,
          headers: flatHeaders(request, this.host),
          ca: this.ca,
          agent: false,
        },
        (res: IncomingMessage) => {
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => finish(false));
          res.on('close', () => finish(false));
          res.on('error', (error) => finish(false, error.message));
          settled = true;
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.alloc(0),
            ms: Date.now() - started,
            ended,
            abort: () => req.destroy(),
          });
        },
      );
      const timer = setTimeout(() => {
        // Timers run before pending I/O: when this thread was busy past the deadline (parsing a large
        // answer), a stream that ended in time is read only after this. Judge once that I/O is in.
        setImmediate(() => cutAtDeadline());
      }, deadlineMs);
      const cutAtDeadline = () => {
        finish(true);
        req.destroy();
        if (!settled) {
          settled = true;
          resolve({
            status: 0,
            headers: {},
            body: Buffer.alloc(0),
            ms: Date.now() - started,
            error: `no answer within ${deadlineMs} ms`,
            ended,
            abort: () => undefined,
          });
        }
      };
      req.on('error', (error: NodeJS.ErrnoException) => {
        finish(false, error.message);
        if (!settled) {
          settled = true;
          resolve({
            status: 0,
            headers: {},
            body: Buffer.alloc(0),
            ms: Date.now() - started,
            error: error.code ?? error.message,
            ended,
            abort: () => undefined,
          });
        }
      });
      req.end(request.body);
    });
  }

  close(): void {
    this.agent.destroy();
  }

  private exchange(request: WireRequest, timeoutMs: number, agent: Agent | false): Promise<{ answer: Answer; reused: boolean; code?: string }> {
    const started = Date.now();
    return new Promise((resolve) => {
      let done = false;
      let responded = false;
      const settle = (answer: Answer, reused: boolean, code?: string) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve({ answer, reused, code });
      };
      const req = httpsRequest(
        {
          hostname: this.hostname,
          port: this.port,
          path: request.target,
          method: request.method,
          headers: flatHeaders(request, this.host),
          ca: this.ca,
          agent,
        },
        (res: IncomingMessage) => {
          responded = true;
          const chunks: Buffer[] = [];
          const cut = (code: string) =>
            settle(
              { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), ms: Date.now() - started, error: `answer cut: ${code}` },
              req.reusedSocket,
              code,
            );
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            settle({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), ms: Date.now() - started }, req.reusedSocket),
          );
          res.on('error', (error: NodeJS.ErrnoException) => cut(error.code ?? error.message));
          res.on('close', () => {
            if (!res.complete) cut('ECONNRESET');
          });
        },
      );
      const timer = setTimeout(() => {
        settle({ status: 0, headers: {}, body: Buffer.alloc(0), ms: Date.now() - started, error: `no answer within ${timeoutMs} ms` }, false);
        req.destroy();
      }, timeoutMs);
      req.on('error', (error: NodeJS.ErrnoException) => {
        // A server may answer (413, 431) before it read the whole body and close: the answer counts.
        if (responded) return;
        settle({ status: 0, headers: {}, body: Buffer.alloc(0), ms: Date.now() - started, error: error.code ?? error.message }, req.reusedSocket, error.code);
      });
      req.end(request.body);
    });
  }
}

function flatHeaders(request: WireRequest, host: string): string[] {
  const flat: string[] = [];
  const names = new Set(request.headers.map(([name]) => name.toLowerCase()));
  // Node adds no Host of its own to a header list given as an array.
  if (!names.has('host')) flat.push('Host', host);
  for (const [name, value] of request.headers) flat.push(name, value);
  if (request.body !== undefined && !names.has('content-length') && !names.has('transfer-encoding')) {
    flat.push('Content-Length', String(request.body.length));
  }
  return flat;
}
