import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { SpdySession, type SpdyStream } from './spdy-session';
import { eventually } from '@svc/informers/testing';

/** A client session and a server session over one loopback connection. */
async function sessionPair(): Promise<{ client: SpdySession; server: SpdySession; sockets: Socket[]; listener: Server }> {
  const listener = createServer();
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const accepted = once(listener, 'connection') as Promise<[Socket]>;
  const clientSocket = connect((listener.address() as AddressInfo).port, '127.0.0.1');
  await once(clientSocket, 'connect');
  const [serverSocket] = await accepted;
  return { client: new SpdySession(clientSocket, true), server: new SpdySession(serverSocket, false), sockets: [clientSocket, serverSocket], listener };
}

/** A data frame as a peer writes it. */
function dataFrame(id: number, payload: Buffer, fin = false): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(id, 0);
  header.writeUInt32BE(((fin ? 1 : 0) << 24) | payload.length, 4);
  return Buffer.concat([header, payload]);
}

/** The control frames in bytes a session wrote, by type (SETTINGS 4, WINDOW_UPDATE 9, ...). */
function controlFrames(bytes: Buffer): Array<{ type: number; body: Buffer }> {
  const frames: Array<{ type: number; body: Buffer }> = [];
  for (let offset = 0; offset + 8 <= bytes.length;) {
    const length = bytes.readUInt32BE(offset + 4) & 0xffffff;
    if (bytes[offset] & 0x80) frames.push({ type: bytes.readUInt16BE(offset + 2), body: bytes.subarray(offset + 8, offset + 8 + length) });
    offset += 8 + length;
  }
  return frames;
}

function collect(stream: SpdyStream): { text: () => string; ended: Promise<unknown> } {
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { text: () => text, ended: once(stream, 'end') };
}

describe('a SPDY/3.1 session', () => {
  let pair: Awaited<ReturnType<typeof sessionPair>>;
  beforeEach(async () => (pair = await sessionPair()));
  afterEach(async () => {
    for (const socket of pair.sockets) socket.destroy();
    await new Promise((resolve) => pair.listener.close(resolve));
  });

  it('opens streams with headers (compressed across frames), replies, and carries data both ways to each end', async () => {
    const opened = once(pair.server, 'stream') as Promise<[SpdyStream]>;
    const stdin = pair.client.openStream({ streamtype: 'stdin', 'X-Request': 'one' });
    const [remote] = await opened;
    expect(remote.headers).toEqual({ streamtype: 'stdin', 'x-request': 'one' });
    const replied = once(stdin, 'reply');
    remote.reply({ status: 'ok' });
    expect((await replied)[0]).toEqual({ status: 'ok' });
    const atServer = collect(remote);
    stdin.write(Buffer.from('x'.repeat(70_000)));
    stdin.end();
    await atServer.ended;
    expect(atServer.text()).toHaveLength(70_000);
    const atClient = collect(stdin);
    remote.write(Buffer.from('back'));
    remote.end();
    await atClient.ended;
    expect(atClient.text()).toBe('back');
    // A second stream's headers inflate with the state the first left.
    const second = once(pair.server, 'stream') as Promise<[SpdyStream]>;
    pair.client.openStream({ streamtype: 'stdout' });
    expect((await second)[0].headers).toEqual({ streamtype: 'stdout' });
  });

  it('resets a stream, and ends every stream when the connection goes', async () => {
    const opened = once(pair.server, 'stream') as Promise<[SpdyStream]>;
    const error = pair.client.openStream({ streamtype: 'error' });
    const [remote] = await opened;
    const reset = once(error, 'reset');
    remote.reset(5);
    expect((await reset)[0]).toBe(5);
    const other = pair.client.openStream({ streamtype: 'stdout' });
    await once(pair.server, 'stream');
    const ended = once(other, 'end');
    const closed = once(pair.client, 'close');
    pair.server.close();
    await Promise.all([ended, closed]);
    expect(other.remoteClosed).toBe(true);
  });

  it('grants the largest windows once at the start, and writes nothing back for the data it receives', async () => {
    const [clientSocket, serverSocket] = pair.sockets;
    serverSocket.removeAllListeners('data');
    let written = Buffer.alloc(0);
    serverSocket.on('data', (chunk: Buffer) => (written = Buffer.concat([written, chunk])));
    const stdout = pair.client.openStream({ streamtype: 'stdout' });
    const atClient = collect(stdout);
    await eventually(() => expect(controlFrames(written).some((f) => f.type === 1)).toBe(true));
    const before = written.length;
    serverSocket.write(Buffer.concat([dataFrame(1, Buffer.alloc(100_000, 'x')), dataFrame(1, Buffer.from('end'), true)]));
    await atClient.ended;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(atClient.text()).toHaveLength(100_003);
    expect(written.length).toBe(before);
    const frames = controlFrames(written);
    expect(frames.map((f) => f.type)).toEqual([4, 9, 1]);
    expect([frames[0].body.readUInt32BE(4), frames[0].body.readUInt32BE(8)]).toEqual([7, 0x7fffffff]);
    expect([frames[1].body.readUInt32BE(0), frames[1].body.readUInt32BE(4)]).toEqual([0, 0x7fffffff - 65536]);
    expect(clientSocket.destroyed).toBe(false);
  });

  it('hands on every frame a peer wrote before it closed, whatever it answers to bytes that come after', async () => {
    const [, serverSocket] = pair.sockets;
    const opened = new Promise<void>((resolve) =>
      pair.server.on('stream', (stream: SpdyStream) => {
        if (stream.id === 3) resolve();
      }),
    );
    const stdout = collect(pair.client.openStream({ streamtype: 'stdout' }));
    const error = collect(pair.client.openStream({ streamtype: 'error' }));
    // Once the peer has read all the client wrote, it writes raw frames of its own.
    await opened;
    serverSocket.removeAllListeners('data');
    // As a runtime ends an exec: its last output and the exit status, then the connection closed.
    // Bytes that reach a closed socket are answered with a reset, on which Node destroys the socket
    // with what it has not read yet; the output fills one read exactly, so the status comes in the next.
    const output = Buffer.alloc(65536 - 8, 'o');
    serverSocket.write(Buffer.concat([dataFrame(1, output), dataFrame(3, Buffer.from('{"status":"Success"}'))]));
    expect(serverSocket.writableLength).toBe(0);
    serverSocket.destroy();
    await Promise.all([stdout.ended, error.ended]);
    expect(stdout.text()).toHaveLength(output.length);
    expect(error.text()).toBe('{"status":"Success"}');
  });
});
