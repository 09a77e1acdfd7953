import { connect, type TLSSocket } from 'node:tls';
import type { HttpsTarget } from './https-client';

/**
 * A minimal HTTP/1.1 client over one TLS connection, for the load loops. Node's own https client costs
 * this machine three to four times the CPU per request that a bare HTTPS server spends answering it, so a
 * single client process could not load even the reference server; this one writes prebuilt request bytes
 * and frames responses (Content-Length or chunked) without copying bodies, at a fraction of that cost.
 */

const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');
const MAX_HEAD_BYTES = 64 * 1024;
const KEPT_BODY_BYTES = 300;
// No single request of the benchmark should take this long; past it the server is taken to be stuck.
const REQUEST_TIMEOUT_MS = 30_000;

export interface RawReply {
  status: number;
  /** Body bytes received (after chunk framing is removed). */
  bodyBytes: number;
  /** The first few hundred body bytes, for error messages. */
  bodyStart: string;
}

/** The bytes of one request; `body` adds Content-Type and Content-Length. */
export function requestBytes(target: HttpsTarget, method: string, path: string, body?: string, contentType = 'application/json'): Buffer {
  let head = `${method} ${path} HTTP/1.1\r\nHost: ${target.host}:${target.port}\r\nAccept: application/json\r\n`;
  if (body === undefined) return Buffer.from(`${head}\r\n`, 'latin1');
  const payload = Buffer.from(body, 'utf8');
  head += `Content-Type: ${contentType}\r\nContent-Length: ${payload.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), payload]);
}

/** A TLS connection to the target, verified against its CA, once the handshake is done. */
export function connectTls(target: HttpsTarget): Promise<TLSSocket> {
  return new Promise<TLSSocket>((resolve, reject) => {
    const socket = connect({ host: target.host, port: target.port, ca: target.ca, ALPNProtocols: ['http/1.1'] }, () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

type State = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailer' | 'until-close';

interface Pending {
  resolve: (reply: RawReply) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/** One keep-alive connection carrying one request at a time; reconnects when the server closed it between requests. */
export class KeepAliveConnection {
  private socket: TLSSocket | undefined;
  private buffered: Buffer = Buffer.alloc(0);
  private state: State = 'head';
  private remaining = 0;
  private status = 0;
  private bodyBytes = 0;
  private bodyStart = '';
  private closeAfter = false;
  private pending: Pending | undefined;

  private constructor(private readonly target: HttpsTarget) {}

  static async open(target: HttpsTarget): Promise<KeepAliveConnection> {
    const connection = new KeepAliveConnection(target);
    await connection.connect();
    return connection;
  }

  async request(bytes: Buffer): Promise<RawReply> {
    if (this.pending) throw new Error('a request is already in flight on this connection');
    if (!this.socket) await this.connect();
    return new Promise<RawReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.fail(new Error(`no complete response within ${REQUEST_TIMEOUT_MS} ms`));
        this.close();
      }, REQUEST_TIMEOUT_MS);
      this.pending = { resolve, reject, timer };
      this.state = 'head';
      this.status = 0;
      this.bodyBytes = 0;
      this.bodyStart = '';
      this.closeAfter = false;
      this.socket?.write(bytes);
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }

  private async connect(): Promise<void> {
    const socket = await connectTls(this.target);
    this.socket = socket;
    this.buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    const lost = (error?: Error): void => {
      // Events of a socket this connection already let go of concern no request of it.
      if (this.socket !== socket) return;
      this.socket = undefined;
      if (this.state === 'until-close' && this.pending) return this.complete();
      this.fail(error ?? new Error('the server closed the connection during a request'));
    };
    socket.on('error', lost);
    socket.on('close', () => lost());
  }

  private onData(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    try {
      while (this.pending && this.step());
    } catch (error) {
      this.fail(error instanceof Error ? error : new Error(String(error)));
      this.close();
    }
  }

  /** Consumes what it can of the buffered bytes; false when it needs more. */
  private step(): boolean {
    const data = this.buffered;
    switch (this.state) {
      case 'head': {
        const end = data.indexOf(HEAD_END);
        if (end < 0) {
          if (data.length > MAX_HEAD_BYTES) throw new Error('response head too large');
          return false;
        }
        const bodyless = this.readHead(data.toString('latin1', 0, end));
        this.buffered = data.subarray(end + HEAD_END.length);
        if (bodyless) this.complete();
        return true;
      }
      case 'length':
      case 'chunk-data':
      case 'until-close': {
        if (data.length === 0) return false;
        const take = this.state === 'until-close' ? data.length : Math.min(this.remaining, data.length);
        this.body(data.subarray(0, take));
        this.buffered = data.subarray(take);
        this.remaining -= take;
        if (this.remaining === 0 && this.state === 'length') this.complete();
        else if (this.remaining === 0 && this.state === 'chunk-data') this.state = 'chunk-end';
        return true;
      }
      case 'chunk-end': {
        if (data.length < CRLF.length) return false;
        this.buffered = data.subarray(CRLF.length);
        this.state = 'chunk-size';
        return true;
      }
      case 'chunk-size': {
        const end = data.indexOf(CRLF);
        if (end < 0) return false;
        const size = Number.parseInt(data.toString('latin1', 0, end).split(';')[0], 16);
        if (!Number.isFinite(size) || size < 0) throw new Error('malformed chunk size');
        this.buffered = data.subarray(end + CRLF.length);
        if (size === 0) this.state = 'trailer';
        else {
          this.remaining = size;
          this.state = 'chunk-data';
        }
        return true;
      }
      case 'trailer': {
        const end = data.indexOf(CRLF);
        if (end < 0) return false;
        this.buffered = data.subarray(end + CRLF.length);
        if (end === 0) this.complete();
        return true;
      }
    }
  }

  /** Sets the framing of the body from the head; true when no body follows. */
  private readHead(head: string): boolean {
    const lines = head.split('\r\n');
    const statusLine = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0]);
    if (!statusLine) throw new Error(`malformed status line ${JSON.stringify(lines[0].slice(0, 100))}`);
    this.status = Number(statusLine[1]);
    let length: number | undefined;
    let chunked = false;
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line
        .slice(colon + 1)
        .trim()
        .toLowerCase();
      if (name === 'content-length') length = Number(value);
      else if (name === 'transfer-encoding') chunked = value.split(',').some((coding) => coding.trim() === 'chunked');
      else if (name === 'connection') this.closeAfter = value.split(',').some((option) => option.trim() === 'close');
    }
    // Statuses that never carry a body, whatever the headers say.
    if (this.status === 204 || this.status === 304 || this.status < 200) length = 0;
    if (chunked && length !== 0) this.state = 'chunk-size';
    else if (length !== undefined) {
      this.state = 'length';
      this.remaining = length;
    } else this.state = 'until-close';
    return length === 0;
  }

  private body(bytes: Buffer): void {
    this.bodyBytes += bytes.length;
    if (this.bodyStart.length < KEPT_BODY_BYTES) this.bodyStart += bytes.toString('utf8', 0, Math.min(bytes.length, KEPT_BODY_BYTES));
  }

  private complete(): void {
    const pending = this.pending;
    this.pending = undefined;
    this.state = 'head';
    if (pending) clearTimeout(pending.timer);
    if (this.closeAfter) this.close();
    pending?.resolve({ status: this.status, bodyBytes: this.bodyBytes, bodyStart: this.bodyStart.slice(0, KEPT_BODY_BYTES) });
  }

  private fail(error: Error): void {
    const pending = this.pending;
    this.pending = undefined;
    if (pending) clearTimeout(pending.timer);
    pending?.reject(error);
  }
}
