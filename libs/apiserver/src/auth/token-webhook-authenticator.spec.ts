import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TokenWebhookAuthenticator } from './token-webhook-authenticator';

describe('TokenWebhookAuthenticator', () => {
  let server: Server;
  let url: string;
  let reviews: Array<{ apiVersion: string; kind: string; spec: { token: string; audiences?: string[] } }>;
  let answer: (token: string) => { status: number; body: unknown };
  let clock: number;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as (typeof reviews)[number];
        reviews.push(review);
        const { status, body } = answer(review.spec.token);
        res.statusCode = status;
        res.end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/authenticate`;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  beforeEach(() => {
    reviews = [];
    clock = 1_000_000;
    answer = (token) =>
      token === 'good'
        ? {
            status: 200,
            body: {
              apiVersion: 'authentication.k8s.io/v1',
              kind: 'TokenReview',
              status: { authenticated: true, user: { username: 'jane', uid: '42', groups: ['devs'], extra: { scopes: ['a'] } } },
            },
          }
        : { status: 200, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', status: { authenticated: false } } };
  });

  function authenticator(apiAudiences: string[] = [], cacheTtlMs = 120_000): TokenWebhookAuthenticator {
    return new TokenWebhookAuthenticator({ client: { server: url }, cacheTtlMs, version: 'v1' }, apiAudiences, () => clock);
  }

  it('sends a TokenReview of the configured version and takes the user of an authenticated answer', async () => {
    const auth = new TokenWebhookAuthenticator({ client: { server: url }, cacheTtlMs: 0, version: 'v1beta1' });
    expect(await auth.authenticateToken('good')).toEqual({ user: { name: 'jane', uid: '42', groups: ['devs'], extra: { scopes: ['a'] } } });
    expect(reviews[0]).toMatchObject({ apiVersion: 'authentication.k8s.io/v1beta1', kind: 'TokenReview', spec: { token: 'good' } });
  });

  it('leaves a token the webhook does not authenticate to the others, and refuses one it gives a reason for', async () => {
    expect(await authenticator().authenticateToken('other')).toBeUndefined();
    answer = () => ({ status: 200, body: { kind: 'TokenReview', status: { authenticated: false, error: 'token revoked' } } });
    expect(await authenticator().authenticateToken('revoked')).toEqual({ error: 'webhook: token revoked' });
  });

  it('keeps answers, yes and no, for the cache TTL only', async () => {
    const auth = authenticator();
    await auth.authenticateToken('good');
    await auth.authenticateToken('good');
    await auth.authenticateToken('other');
    await auth.authenticateToken('other');
    expect(reviews).toHaveLength(2);
    clock += 120_001;
    await auth.authenticateToken('good');
    expect(reviews).toHaveLength(3);
  });

  it('refuses when the webhook fails, without keeping the failure', async () => {
    answer = () => ({ status: 500, body: {} });
    const auth = authenticator();
    expect(await auth.authenticateToken('good')).toEqual({ error: 'webhook: the webhook answered 500' });
    answer = () => ({ status: 200, body: { kind: 'Status' } });
    expect(await auth.authenticateToken('good')).toEqual({ error: 'webhook: the answer is not a TokenReview' });
    expect(reviews).toHaveLength(2);
  });

  it('sends the server’s audiences and accepts only answers matching them', async () => {
    const auth = authenticator(['https://kubernetes.default.svc']);
    expect(await auth.authenticateToken('good')).toMatchObject({ audiences: ['https://kubernetes.default.svc'] });
    expect(reviews[0].spec.audiences).toEqual(['https://kubernetes.default.svc']);
    answer = () => ({ status: 200, body: { kind: 'TokenReview', status: { authenticated: true, user: { username: 'x' }, audiences: ['vault'] } } });
    expect(await auth.authenticateToken('fresh')).toBeUndefined();
  });
});
