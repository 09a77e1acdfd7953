import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AuthorizationAttributes } from '../authorizer';
import { WebhookAuthorizer, type WebhookAuthorizerOptions } from './webhook-authorizer';

let server: Server;
let url: string;
const received: Array<Record<string, unknown>> = [];
let answer: (review: Record<string, unknown>) => { code: number; body: string } = () => ({ code: 200, body: '{}' });

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>;
      received.push(review);
      const { code, body } = answer(review);
      res.writeHead(code, { 'Content-Type': 'application/json' }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/authorize`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

beforeEach(() => (received.length = 0));

function authorizer(overrides: Partial<WebhookAuthorizerOptions> = {}, now?: () => number): WebhookAuthorizer {
  return new WebhookAuthorizer({ client: { server: url }, version: 'v1', authorizedTtlMs: 0, unauthorizedTtlMs: 0, retryDelaysMs: [1, 1], ...overrides }, now);
}

const attrs: AuthorizationAttributes = {
  user: { name: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'], extra: { scopes: ['a'] } },
  verb: 'get',
  isResourceRequest: true,
  namespace: 'team',
  apiGroup: 'apps',
  apiVersion: 'v1',
  resource: 'deployments',
  subresource: 'scale',
  name: 'web',
  path: '',
};

const status = (s: Record<string, unknown>) => () => ({
  code: 200,
  body: JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', status: s }),
});

describe('WebhookAuthorizer', () => {
  it('sends a SubjectAccessReview of the request and follows allowed, denied and neither', async () => {
    answer = status({ allowed: true, reason: 'ok by policy' });
    expect(await authorizer().authorize(attrs)).toEqual({ decision: 'allow', reason: 'ok by policy' });
    expect(received[0]).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: 'alice',
        uid: 'u-1',
        groups: ['devs', 'system:authenticated'],
        extra: { scopes: ['a'] },
        resourceAttributes: { namespace: 'team', verb: 'get', group: 'apps', version: 'v1', resource: 'deployments', subresource: 'scale', name: 'web' },
      },
    });
    answer = status({ allowed: false, denied: true, reason: 'no' });
    expect(await authorizer().authorize(attrs)).toEqual({ decision: 'deny', reason: 'no' });
    answer = status({ allowed: false });
    expect(await authorizer().authorize(attrs)).toEqual({ decision: 'noOpinion', reason: '' });
  });

  it('speaks v1beta1, whose groups are `group`, and asks about paths', async () => {
    answer = status({ allowed: true });
    await authorizer({ version: 'v1beta1' }).authorize({ ...attrs, isResourceRequest: false, path: '/metrics', verb: 'get' });
    expect(received[0]).toMatchObject({
      apiVersion: 'authorization.k8s.io/v1beta1',
      spec: { group: ['devs', 'system:authenticated'], nonResourceAttributes: { path: '/metrics', verb: 'get' } },
    });
  });

  it('caches answers for their TTL', async () => {
    let now = 0;
    const cached = authorizer({ authorizedTtlMs: 1_000, unauthorizedTtlMs: 100 }, () => now);
    answer = status({ allowed: true });
    await cached.authorize(attrs);
    await cached.authorize(attrs);
    expect(received).toHaveLength(1);
    now = 1_001;
    answer = status({ allowed: false });
    expect((await cached.authorize(attrs)).decision).toBe('noOpinion');
    now = 1_050;
    await cached.authorize(attrs);
    expect(received).toHaveLength(2);
    now = 1_200;
    await cached.authorize(attrs);
    expect(received).toHaveLength(3);
  });

  it('has no opinion and reports an error when the webhook fails, after retrying', async () => {
    answer = () => ({ code: 500, body: 'boom' });
    const failed = await authorizer().authorize(attrs);
    expect(failed).toMatchObject({ decision: 'noOpinion', error: expect.stringContaining('the webhook answered 500') });
    expect(received).toHaveLength(3);
    answer = () => ({ code: 200, body: 'not json' });
    expect((await authorizer().authorize(attrs)).error).toContain('the answer is not JSON');
    const unreachable = new WebhookAuthorizer({
      client: { server: 'http://127.0.0.1:1/' },
      version: 'v1',
      authorizedTtlMs: 0,
      unauthorizedTtlMs: 0,
      retryDelaysMs: [],
    });
    expect((await unreachable.authorize(attrs)).decision).toBe('noOpinion');
  });
});
