import { connect, createServer, type Server, type Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { spliceDuplex } from './splice-duplex';

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

describe('spliceDuplex', () => {
  const servers: Server[] = [];
  afterEach(() => servers.splice(0).forEach((s) => s.close()));

  it('writes out what is still queued for one side after the other has closed', async () => {
    // A slow consumer: each write completes 5 ms later, so most of the output is still queued when the
    // origin (which writes everything and closes at once) is gone.
    const received: string[] = [];
    const slow = new Duplex({
      read() {},
      write(chunk: Buffer, _encoding, done) {
        received.push(chunk.toString());
        setTimeout(done, 5);
      },
    });
    const origin = new Duplex({
      read() {},
      write(_chunk, _encoding, done) {
        done();
      },
    });
    spliceDuplex(origin, slow);
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i}\n`);
    for (const line of lines) origin.push(line);
    origin.push(null);
    await new Promise((resolve) => origin.once('end', resolve));
    origin.destroy();
    await new Promise((resolve) => slow.once('finish', resolve));
    expect(received.join('')).toBe(lines.join(''));
  });

  it('ends the other side when one closes, and destroys it if it lingers', async () => {
    const a = connectPair();
    const b = connectPair();
    const [aNear, aFar] = await a;
    const [bNear, bFar] = await b;
    spliceDuplex(aNear, bNear, 100);
    // bFar never reads nor ends: once aNear closes, bNear is ended and then destroyed after the linger.
    bFar.pause();
    const closed = new Promise<void>((resolve) => bNear.once('close', () => resolve()));
    aFar.destroy();
    await closed;
    expect(bNear.destroyed).toBe(true);
    bFar.destroy();
  });

  async function connectPair(): Promise<[Socket, Socket]> {
    let far: Socket | undefined;
    const accepted = new Promise<Socket>((resolve) => {
      const server = createServer((s) => resolve(s));
      servers.push(server);
      void listen(server).then((port) => (far = connect(port, '127.0.0.1')));
    });
    const near = await accepted;
    return [near, far!];
  }
});
