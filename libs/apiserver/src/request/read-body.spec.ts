import { PassThrough } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { StatusError } from '../status/status';
import { readBody } from './read-body';

function fakeRequest(headers: Record<string, string> = {}): IncomingMessage & PassThrough {
  const stream = new PassThrough() as PassThrough & { headers: Record<string, string> };
  stream.headers = headers;
  return stream as unknown as IncomingMessage & PassThrough;
}

describe('readBody', () => {
  it('reads a body under the limit', async () => {
    const req = fakeRequest({ 'content-length': '5' });
    const body = readBody(req, 10);
    req.end('hello');
    await expect(body).resolves.toEqual(Buffer.from('hello'));
  });

  it('refuses a declared length over the limit before reading anything', async () => {
    const req = fakeRequest({ 'content-length': '11' });
    await expect(readBody(req, 10)).rejects.toMatchObject({
      status: { code: 413, reason: 'RequestEntityTooLarge', message: 'Request entity too large: limit is 10' },
    });
    expect(req.readableFlowing).toBeNull();
  });

  it('stops a body without length at the limit', async () => {
    const req = fakeRequest();
    const body = readBody(req, 10);
    req.write('0123456789');
    req.write('x');
    const error = await body.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StatusError);
    expect((error as StatusError).status.code).toBe(413);
  });

  it('answers 400 for a body shorter than its Content-Length', async () => {
    const req = fakeRequest({ 'content-length': '8' });
    const body = readBody(req, 10);
    req.end('abc');
    await expect(body).rejects.toMatchObject({ status: { code: 400, reason: 'BadRequest' } });
  });
});
