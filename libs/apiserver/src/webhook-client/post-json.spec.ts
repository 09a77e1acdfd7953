import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JsonPostError, postJson } from './post-json';

let server: Server;
let url: URL;
let answer: (body: string) => { code: number; body: string; delayMs?: number } = () => ({ code: 200, body: '{}' });
let seen: { body: string; authorization?: string } | undefined;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen = { body, authorization: req.headers.authorization };
      const a = answer(body);
      setTimeout(() => res.writeHead(a.code, { 'Content-Type': 'application/json' }).end(a.body), a.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/review`);
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const limits = { timeoutMs: 2_000, maxResponseBytes: 1_000 };

async function failure(run: () => Promise<unknown>): Promise<JsonPostError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof JsonPostError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('postJson', () => {
  it('sends the body as JSON with the bearer token and resolves with the parsed answer', async () => {
    answer = (body) => ({ code: 201, body: JSON.stringify({ echoed: JSON.parse(body) }) });
    await expect(postJson({ url, bearerToken: 't0k' }, { a: 1 }, limits)).resolves.toEqual({ echoed: { a: 1 } });
    expect(seen).toEqual({ body: '{"a":1}', authorization: 'Bearer t0k' });
  });

  it('retries what Kubernetes retries (429, 5xx, no answer in time, no connection) and nothing else', async () => {
    for (const [code, retryable] of [
      [429, true],
      [503, true],
      [403, false],
      [302, false],
    ] as const) {
      answer = () => ({ code, body: '{}' });
      expect(await failure(() => postJson({ url }, {}, limits))).toMatchObject({ message: `the webhook answered ${code}`, retryable });
    }
    answer = () => ({ code: 200, body: '{}', delayMs: 500 });
    expect(await failure(() => postJson({ url }, {}, { ...limits, timeoutMs: 100 }))).toMatchObject({ message: 'context deadline exceeded', retryable: true });
    expect(await failure(() => postJson({ url: new URL('http://127.0.0.1:1/') }, {}, limits))).toMatchObject({ retryable: true });
  });

  it('bounds the answer before parsing it: size, nesting, JSON', async () => {
    answer = () => ({ code: 200, body: `"${'x'.repeat(2_000)}"` });
    expect(await failure(() => postJson({ url }, {}, limits))).toMatchObject({ message: 'response body larger than 1000 bytes', retryable: false });
    answer = () => ({ code: 200, body: '['.repeat(1_100) + ']'.repeat(1_100) });
    expect(await failure(() => postJson({ url }, {}, { ...limits, maxResponseBytes: 1_000_000 }))).toMatchObject({
      message: 'the answer is nested too deeply',
      retryable: false,
    });
    answer = () => ({ code: 200, body: 'not json' });
    expect(await failure(() => postJson({ url }, {}, limits))).toMatchObject({ message: 'the answer is not JSON', retryable: false });
  });
});
