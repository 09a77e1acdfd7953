import { PassThrough } from 'node:stream';
import { rejectUpgrade } from './upgrade-refusal';

async function answer(code: number, message: string): Promise<string> {
  const socket = new PassThrough();
  let text = '';
  socket.on('data', (c: Buffer) => (text += c.toString()));
  const ended = new Promise((resolve) => socket.on('end', resolve));
  rejectUpgrade(socket, code, message);
  socket.resume();
  await ended;
  return text;
}

describe('a refused upgrade', () => {
  it('is answered with a plain HTTP response and the connection closed', async () => {
    expect(await answer(404, 'pod a/b not found on this node')).toBe(
      'HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 31\r\nConnection: close\r\n\r\npod a/b not found on this node\n',
    );
    expect(await answer(403, 'Forbidden')).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
    expect(await answer(502, 'no runtime')).toMatch(/^HTTP\/1\.1 502 Internal Server Error\r\n/);
  });
});
