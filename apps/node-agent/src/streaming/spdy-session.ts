import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { constants as zlibConstants, createDeflate, createInflate, type Deflate, type Inflate } from 'node:zlib';
import { SPDY3_DICTIONARY } from './spdy-dictionary';

const VERSION = 3;
const TYPE = { SYN_STREAM: 1, SYN_REPLY: 2, RST_STREAM: 3, SETTINGS: 4, PING: 6, GOAWAY: 7, HEADERS: 8, WINDOW_UPDATE: 9 } as const;
const FLAG_FIN = 0x01;
/** Largest data frame this side sends (SPDY allows 16 MiB; smaller frames interleave streams). */
const MAX_DATA_FRAME = 32 * 1024;
/** Largest frame accepted from the peer. */
const MAX_FRAME = 16 * 1024 * 1024;
/** SPDY/3.1's initial window of every stream and of the session. */
const DEFAULT_WINDOW = 64 * 1024;
/** The largest window SPDY allows: what this side grants the peer for each stream and for the session. */
const MAX_WINDOW = 0x7fffffff;
/** A window is topped up once this much of it has been used (never, in an ordinary exec). */
const TOP_UP_AFTER = 2 ** 30;
const SETTINGS_INITIAL_WINDOW_SIZE = 7;

export type SpdyHeaders = Record<string, string>;

/** One stream of a SPDY session: data both ways, each side ending its half with FIN. */
export class SpdyStream extends EventEmitter {
  private localClosed = false;
  remoteClosed = false;
  replyHeaders?: SpdyHeaders;
  /** Bytes received since this stream's window was last topped up. */
  received = 0;

  constructor(
    readonly id: number,
    readonly headers: SpdyHeaders,
    private readonly session: SpdySession,
  ) {
    super();
  }

  write(data: Buffer): void {
    if (this.localClosed) return;
    for (let offset = 0; offset < data.length; offset += MAX_DATA_FRAME) this.session.sendData(this.id, data.subarray(offset, offset + MAX_DATA_FRAME), false);
  }

  /** Ends this side (FIN); the peer may go on sending. */
  end(): void {
    if (this.localClosed) return;
    this.localClosed = true;
    this.session.sendData(this.id, Buffer.alloc(0), true);
  }

  reply(headers: SpdyHeaders = {}): void {
    this.session.sendReply(this.id, headers);
  }

  reset(status = 5): void {
    this.localClosed = true;
    this.remoteClosed = true;
    this.session.sendReset(this.id, status);
  }

  /** The peer reset the stream: nothing more may be sent on it. */
  peerReset(): void {
    this.localClosed = true;
    this.remoteClosed = true;
  }
}

/**
 * A SPDY/3.1 session over a connection, as Kubernetes' streaming protocols use it (exec, attach and
 * port-forward streams of raw bytes, identified by headers): SYN_STREAM and SYN_REPLY with
 * zlib-compressed header blocks, data frames with FIN, RST_STREAM, PING, GOAWAY. The peer's windows
 * are not enforced (the Go implementation Kubernetes uses has no flow control either).
 *
 * This side grants the peer the largest windows at the start instead of a WINDOW_UPDATE per data
 * frame: Kubernetes' streaming servers ignore WINDOW_UPDATE, and one written just as the runtime
 * closes the connection (after an exec's last output and exit status) is answered with a reset,
 * on which Node destroys the socket and drops what it had not yet read: the exit status, and
 * sometimes the last output, were lost.
 */
export class SpdySession extends EventEmitter {
  private readonly streams = new Map<number, SpdyStream>();
  private nextId: number;
  private buffer: Buffer = Buffer.alloc(0);
  private readonly deflate: Deflate = createDeflate({ dictionary: SPDY3_DICTIONARY });
  private readonly inflate: Inflate = createInflate({ dictionary: SPDY3_DICTIONARY });
  private sendQueue: Promise<void> = Promise.resolve();
  private receiveQueue: Promise<void> = Promise.resolve();
  private closed = false;
  /** Bytes received since the session's window was last topped up. */
  private received = 0;

  constructor(
    private readonly socket: Duplex,
    isClient: boolean,
  ) {
    super();
    this.nextId = isClient ? 1 : 2;
    this.grantWindows();
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    // Frames already received are handled first (headers inflate asynchronously, so the frames behind
    // them wait in the receive queue): a peer that writes its last output and closes loses nothing.
    const afterReceived = () => {
      this.receiveQueue = this.receiveQueue.then(() => this.shutdown());
    };
    socket.on('close', afterReceived);
    socket.on('error', afterReceived);
  }

  /** Opens a stream with these headers; resolves once the peer replies. */
  openStream(headers: SpdyHeaders): SpdyStream {
    const id = this.nextId;
    this.nextId += 2;
    const stream = new SpdyStream(id, headers, this);
    this.streams.set(id, stream);
    this.enqueue(async () => {
      const block = await this.compress(headers);
      const body = Buffer.alloc(10);
      body.writeUInt32BE(id & 0x7fffffff, 0);
      body.writeUInt32BE(0, 4);
      body.writeUInt16BE(0, 8);
      this.writeControl(TYPE.SYN_STREAM, 0, Buffer.concat([body, block]));
    });
    return stream;
  }

  close(): void {
    if (this.closed) return;
    this.enqueue(async () => {
      const body = Buffer.alloc(8);
      body.writeUInt32BE(0, 0);
      body.writeUInt32BE(0, 4);
      this.writeControl(TYPE.GOAWAY, 0, body);
    });
    this.enqueue(async () => {
      this.socket.end();
    });
  }

  private shutdown(): void {
    if (this.closed) return;
    this.closed = true;
    for (const stream of this.streams.values()) {
      if (!stream.remoteClosed) {
        stream.remoteClosed = true;
        stream.emit('end');
      }
      stream.emit('close');
    }
    this.streams.clear();
    this.deflate.close();
    this.inflate.close();
    this.emit('close');
  }

  sendData(id: number, data: Buffer, fin: boolean): void {
    this.enqueue(async () => {
      const header = Buffer.alloc(8);
      header.writeUInt32BE(id & 0x7fffffff, 0);
      header.writeUInt32BE(((fin ? FLAG_FIN : 0) << 24) | data.length, 4);
      this.write(Buffer.concat([header, data]));
    });
  }

  sendReply(id: number, headers: SpdyHeaders): void {
    this.enqueue(async () => {
      const block = await this.compress(headers);
      const body = Buffer.alloc(4);
      body.writeUInt32BE(id & 0x7fffffff, 0);
      this.writeControl(TYPE.SYN_REPLY, 0, Buffer.concat([body, block]));
    });
  }

  sendReset(id: number, status: number): void {
    this.enqueue(async () => {
      const body = Buffer.alloc(8);
      body.writeUInt32BE(id & 0x7fffffff, 0);
      body.writeUInt32BE(status, 4);
      this.writeControl(TYPE.RST_STREAM, 0, body);
    });
    this.streams.delete(id);
  }

  private enqueue(task: () => Promise<void>): void {
    this.sendQueue = this.sendQueue.then(task).catch((error: unknown) => this.fail(error));
  }

  private fail(error: unknown): void {
    this.emit('error', error);
    this.socket.destroy();
  }

  private write(bytes: Buffer): void {
    if (!this.closed && !this.socket.destroyed) this.socket.write(bytes);
  }

  private writeControl(type: number, flags: number, body: Buffer): void {
    const header = Buffer.alloc(8);
    header.writeUInt16BE(0x8000 | VERSION, 0);
    header.writeUInt16BE(type, 2);
    header.writeUInt32BE((flags << 24) | body.length, 4);
    this.write(Buffer.concat([header, body]));
  }

  private compress(headers: SpdyHeaders): Promise<Buffer> {
    const entries = Object.entries(headers);
    const parts: Buffer[] = [];
    const count = Buffer.alloc(4);
    count.writeUInt32BE(entries.length);
    parts.push(count);
    for (const [name, value] of entries) {
      for (const text of [name.toLowerCase(), value]) {
        const bytes = Buffer.from(text, 'utf8');
        const length = Buffer.alloc(4);
        length.writeUInt32BE(bytes.length);
        parts.push(length, bytes);
      }
    }
    return this.zlib(this.deflate, Buffer.concat(parts));
  }

  /** Runs one block through a zlib stream that keeps its state across blocks, with a sync flush. */
  private zlib(stream: Deflate | Inflate, input: Buffer): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      const onData = (chunk: Buffer) => chunks.push(chunk);
      const onError = (error: Error) => {
        stream.off('data', onData);
        reject(error);
      };
      stream.on('data', onData);
      stream.once('error', onError);
      stream.write(input);
      stream.flush(zlibConstants.Z_SYNC_FLUSH, () => {
        stream.off('data', onData);
        stream.off('error', onError);
        resolve(Buffer.concat(chunks));
      });
    });
  }

  private async decompress(block: Buffer): Promise<SpdyHeaders> {
    const raw = await this.zlib(this.inflate, block);
    const headers: SpdyHeaders = {};
    let offset = 4;
    const count = raw.readUInt32BE(0);
    for (let i = 0; i < count; i++) {
      const nameLength = raw.readUInt32BE(offset);
      const name = raw.subarray(offset + 4, offset + 4 + nameLength).toString('utf8');
      offset += 4 + nameLength;
      const valueLength = raw.readUInt32BE(offset);
      const value = raw.subarray(offset + 4, offset + 4 + valueLength).toString('utf8');
      offset += 4 + valueLength;
      headers[name.toLowerCase()] = value;
    }
    return headers;
  }

  private receive(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    while (this.buffer.length >= 8) {
      const length = this.buffer.readUInt32BE(4) & 0xffffff;
      if (length > MAX_FRAME) return this.fail(new Error(`SPDY frame of ${length} bytes`));
      if (this.buffer.length < 8 + length) return;
      const frame = this.buffer.subarray(0, 8 + length);
      this.buffer = this.buffer.subarray(8 + length);
      this.receiveQueue = this.receiveQueue.then(() => this.handle(frame)).catch((error: unknown) => this.fail(error));
    }
  }

  private async handle(frame: Buffer): Promise<void> {
    const flags = frame[4];
    const body = frame.subarray(8);
    if ((frame[0] & 0x80) === 0) return this.onData(frame.readUInt32BE(0) & 0x7fffffff, flags, body);
    switch (frame.readUInt16BE(2)) {
      case TYPE.SYN_STREAM:
        return this.onSynStream(flags, body);
      case TYPE.SYN_REPLY:
        return this.onSynReply(flags, body);
      case TYPE.HEADERS:
        // Read for the compression state the blocks share; nothing here uses them.
        await this.decompress(body.subarray(4));
        return;
      case TYPE.RST_STREAM:
        return this.onReset(body);
      case TYPE.PING:
        return this.onPing(body);
      case TYPE.GOAWAY:
        this.emit('goaway');
        return;
      default:
        // SETTINGS, WINDOW_UPDATE and unknown types need nothing.
        return;
    }
  }

  private onData(id: number, flags: number, body: Buffer): void {
    const stream = this.streams.get(id);
    if (body.length > 0) {
      stream?.emit('data', body);
      this.consumed(stream, body.length, (flags & FLAG_FIN) !== 0);
    }
    if (flags & FLAG_FIN && stream) this.remoteEnded(stream);
  }

  private async onSynStream(flags: number, body: Buffer): Promise<void> {
    const id = body.readUInt32BE(0) & 0x7fffffff;
    const headers = await this.decompress(body.subarray(10));
    const stream = new SpdyStream(id, headers, this);
    this.streams.set(id, stream);
    this.emit('stream', stream);
    if (flags & FLAG_FIN) this.remoteEnded(stream);
  }

  private async onSynReply(flags: number, body: Buffer): Promise<void> {
    const headers = await this.decompress(body.subarray(4));
    const stream = this.streams.get(body.readUInt32BE(0) & 0x7fffffff);
    if (!stream) return;
    stream.replyHeaders = headers;
    stream.emit('reply', headers);
    if (flags & FLAG_FIN) this.remoteEnded(stream);
  }

  private onReset(body: Buffer): void {
    const id = body.readUInt32BE(0) & 0x7fffffff;
    const stream = this.streams.get(id);
    this.streams.delete(id);
    if (!stream) return;
    stream.peerReset();
    stream.emit('reset', body.readUInt32BE(4));
    stream.emit('end');
  }

  /** The peer's pings (odd from a client, even from a server) are echoed. */
  private onPing(body: Buffer): void {
    const id = body.readUInt32BE(0);
    const ours = (id % 2 === 1) === (this.nextId % 2 === 1);
    if (!ours) this.enqueue(async () => this.writeControl(TYPE.PING, 0, Buffer.from(body)));
  }

  private remoteEnded(stream: SpdyStream): void {
    if (stream.remoteClosed) return;
    stream.remoteClosed = true;
    stream.emit('end');
  }

  /** Every stream's window and the session's at the largest SPDY allows, written before any stream opens. */
  private grantWindows(): void {
    const settings = Buffer.alloc(12);
    settings.writeUInt32BE(1, 0);
    settings.writeUInt32BE(SETTINGS_INITIAL_WINDOW_SIZE, 4);
    settings.writeUInt32BE(MAX_WINDOW, 8);
    this.enqueue(async () => {
      this.writeControl(TYPE.SETTINGS, 0, settings);
      this.writeWindowUpdate(0, MAX_WINDOW - DEFAULT_WINDOW);
    });
  }

  /**
   * Counts received data against the windows granted, and tops a window up only once half of it
   * is used: a peer that enforces windows never stalls, and no frame is written back for an
   * ordinary exec's output.
   */
  private consumed(stream: SpdyStream | undefined, length: number, fin: boolean): void {
    this.received += length;
    if (this.received >= TOP_UP_AFTER) {
      const increment = this.received;
      this.received = 0;
      this.enqueue(async () => this.writeWindowUpdate(0, increment));
    }
    if (!stream) return;
    stream.received += length;
    if (stream.received >= TOP_UP_AFTER && !fin && !stream.remoteClosed) {
      const increment = stream.received;
      stream.received = 0;
      this.enqueue(async () => this.writeWindowUpdate(stream.id, increment));
    }
  }

  private writeWindowUpdate(id: number, increment: number): void {
    const body = Buffer.alloc(8);
    body.writeUInt32BE(id & 0x7fffffff, 0);
    body.writeUInt32BE(increment & 0x7fffffff, 4);
    this.writeControl(TYPE.WINDOW_UPDATE, 0, body);
  }
}
