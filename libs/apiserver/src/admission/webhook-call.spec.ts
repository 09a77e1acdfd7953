import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { callWebhook, WebhookCallError } from './webhook-call';
import type { ServiceResolver } from './service-resolver';

let server: Server;
let livePort: number;
let deadPort: number;
let caBundle = '';
let answers = 0;
let status = 200;

beforeAll(async () => {
  const pems = await generate([{ name: 'commonName', value: 'hooks.default.svc' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'hooks.default.svc' }] }],
  });
  caBundle = Buffer.from(pems.cert).toString('base64');
  server = createServer({ cert: pems.cert, key: pems.private }, (req, res) => {
    answers += 1;
    req.resume().on('end', () => res.writeHead(status, { 'content-type': 'application/json' }).end('{"answer":true}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  livePort = (server.address() as AddressInfo).port;
  // A port that was just free: nothing listens there, so connections to it are refused.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  deadPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  answers = 0;
  status = 200;
});

const config = { service: { namespace: 'default', name: 'hooks', port: 443, path: '/review' } };
/** Endpoints in order of preference, each skipped once the call reports it failed. */
function resolverOf(ports: () => number[]): ServiceResolver & { picked: number[] } {
  const picked: number[] = [];
  const resolve: ServiceResolver = (_namespace, _name, _port, exclude) => {
    const port = ports().find((p) => !exclude?.has(`127.0.0.1:${p}`)) ?? ports()[0];
    picked.push(port);
    return Promise.resolve({ host: '127.0.0.1', port, serverName: 'hooks.default.svc' });
  };
  return Object.assign(resolve, { picked });
}

describe('a webhook call behind a Service', () => {
  it('takes a refused connection to another ready endpoint at once', async () => {
    const resolver = resolverOf(() => [deadPort, livePort]);
    const started = Date.now();
    expect(await callWebhook({ ...config, caBundle }, {}, 5_000, resolver)).toEqual({ answer: true });
    expect(resolver.picked).toEqual([deadPort, livePort]);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('waits out the backoff before trying the only endpoint again, within the timeout', async () => {
    const resolver = resolverOf(() => [deadPort]);
    const error = await callWebhook({ ...config, caBundle }, {}, 1_000, resolver).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebhookCallError);
    expect((error as Error).message).toMatch(/^failed to call webhook: Post "https:\/\/hooks\.default\.svc\/review": connect ECONNREFUSED/);
    // Once at once (another endpoint might have been ready), again after 0.5 s; 0.75 s more would
    // pass the 1 s timeout.
    expect(resolver.picked).toEqual([deadPort, deadPort, deadPort]);
  });

  it('never sends a review again once a webhook answered, even with a 500', async () => {
    status = 500;
    const resolver = resolverOf(() => [livePort]);
    await expect(callWebhook({ ...config, caBundle }, {}, 5_000, resolver)).rejects.toThrow('the webhook answered 500');
    expect(answers).toBe(1);
  });
});
