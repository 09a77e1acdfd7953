import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { SpdySession, type SpdyStream } from './spdy-session';

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
});
