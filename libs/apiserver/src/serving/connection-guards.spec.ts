import { createServer, type Server } from 'node:https';
import { connect } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { keepParsingBehindEndedResponses } from './connection-guards';

/** An answer larger than loopback's socket buffers, so that it is still being written when the next request comes. */
const ANSWER = Buffer.alloc(24 * 1024 * 1024, 'a');
const BODY = Buffer.alloc(100_000, 'b');

async function serve(): Promise<{ server: Server; served: () => number; refused: () => string[] }> {
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], { keySize: 2048 });
  let served = 0;
  const refused: string[] = [];
  const server = createServer({ cert: pems.cert, key: pems.private }, (req, res) => {
    req.resume();
    req.on('end', () => {
      served++;
      res.setHeader('Content-Length', ANSWER.length);
      res.end(ANSWER);
    });
  });
  keepParsingBehindEndedResponses(server);
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    refused.push(error.code ?? String(error));
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, served: () => served, refused: () => refused };
}

/**
 * A keep-alive client sending requests with bodies of several TLS records while an earlier answer is
 * still being written to it (the client reads it later), as kubectl's applies of large objects do.
 */
async function threeRequests(server: Server): Promise<number> {
  const socket = connect({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', rejectUnauthorized: false });
  let received = 0;
  await new Promise<void>((resolve) => socket.once('secureConnect', () => resolve()));
  const send = () => {
    socket.write(`PATCH /x HTTP/1.1\r\nHost: x\r\nContent-Length: ${BODY.length}\r\n\r\n`);
    for (let at = 0; at < BODY.length; at += 8_000) socket.write(BODY.subarray(at, at + 8_000));
  };
  socket.on('data', (chunk: Buffer) => (received += chunk.length));
  send();
  // The client stops reading while the first answer arrives, so the rest of it backs up in the server's socket.
  await new Promise((resolve) => setTimeout(resolve, 200));
  socket.pause();
  send();
  await new Promise((resolve) => setTimeout(resolve, 300));
  send();
  await new Promise((resolve) => setTimeout(resolve, 300));
  socket.resume();
  await new Promise<void>((resolve) => {
    const done = () => resolve();
    socket.on('close', done);
    const check = setInterval(() => {
      if (received >= 3 * ANSWER.length) {
        clearInterval(check);
        resolve();
      }
    }, 20);
    setTimeout(() => {
      clearInterval(check);
      resolve();
    }, 10_000).unref();
  });
  socket.destroy();
  return received;
}

// Without the guard, Node's paused parser refuses the later requests with HPE_PAUSED in most runs of this
// case (timing decides whether the TLS layer hands the body over while the parser is paused).
describe('keepParsingBehindEndedResponses', () => {
  it('lets a keep-alive request with a body through while the previous answer is still being written', async () => {
    const { server, served, refused } = await serve();
    try {
      await threeRequests(server);
      expect(refused()).toEqual([]);
      expect(served()).toBe(3);
    } finally {
      server.close();
    }
  }, 20_000);
});
