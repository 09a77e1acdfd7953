import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinScheme } from '@svc/api';
import { createApiServer, type ApiServerHandle } from '@svc/apiserver';
import { createStorage, type Storage } from '@svc/storage';
import { httpsFetch, type HttpsResponse } from './support/https-client';

/**
 * One dispatcher: every path the whole server answers (the shell's, the resources', discovery's,
 * OpenAPI's, the reviews', the service account issuer's) is a route of its one mux and is served
 * through it, no filter answers a path of its own, and a path no route names is Kubernetes' 404 Status.
 */
describe('the API server dispatches every request through its one mux', () => {
  let dir: string;
  let storage: Storage;
  let server: ApiServerHandle;
  let ca: string;
  let served: jest.SpyInstance;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-registry-dispatch-'));
    const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' });
    await writeFile(join(dir, 'sa.key'), key);
    storage = await createStorage({ backend: 'embedded', dataDir: join(dir, 'data'), compactionIntervalMs: 0 });
    server = await createApiServer({
      storage,
      scheme: builtinScheme(),
      options: {
        serving: { bindAddress: '127.0.0.1', securePort: 0, certDir: join(dir, 'certs'), svcconfigOut: '' },
        resources: { storeCountMetricPollPeriodMs: 0 },
        authentication: { serviceAccounts: { signingKeyFile: join(dir, 'sa.key'), issuers: ['https://svc.test'] } },
        identityLease: false,
      },
      logger: false,
      stdout: () => undefined,
    });
    await server.health.postStartHooksSettled();
    ca = await readFile(join(dir, 'certs', 'ca.crt'), 'utf8');
    served = jest.spyOn(server.mux, 'serve');
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await storage?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** One request, and how many times the mux dispatched while it was answered. */
  async function send(method: string, path: string, body?: unknown): Promise<{ res: HttpsResponse; dispatched: number }> {
    const before = served.mock.calls.length;
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
    const res = await httpsFetch(`${server.url}${path}`, { method, ca, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { res, dispatched: served.mock.calls.length - before };
  }

  const review = (kind: string, spec?: object) => ({
    apiVersion: kind.endsWith('AccessReview') ? 'authorization.k8s.io/v1' : 'authentication.k8s.io/v1',
    kind,
    spec,
  });
  const SERVED: Array<[method: string, path: string, body?: unknown]> = [
    ['GET', '/version'],
    ['GET', '/healthz'],
    ['GET', '/livez'],
    ['GET', '/readyz'],
    ['GET', '/livez/ping'],
    ['GET', '/metrics'],
    ['GET', '/api'],
    ['GET', '/api/v1'],
    ['GET', '/apis'],
    ['GET', '/apis/apps'],
    ['GET', '/apis/apps/v1'],
    ['GET', '/openapi/v2'],
    ['GET', '/openapi/v3'],
    ['GET', '/openapi/v3/api/v1'],
    ['GET', '/.well-known/openid-configuration'],
    ['GET', '/openid/v1/jwks'],
    ['GET', '/api/v1/namespaces'],
    ['GET', '/api/v1/namespaces/default/configmaps'],
    ['GET', '/apis/apps/v1/deployments'],
    ['GET', '/api/v1/componentstatuses'],
    ['POST', '/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'dispatch' } }],
    ['POST', '/api/v1/namespaces/default/serviceaccounts/dispatch/token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} }],
    [
      'POST',
      '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      review('SelfSubjectAccessReview', { resourceAttributes: { verb: 'get', resource: 'pods' } }),
    ],
    ['POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', review('SelfSubjectRulesReview', { namespace: 'default' })],
    ['POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', review('SelfSubjectReview')],
  ];

  // Rows of one length: a row shorter than the test's parameters would pass jest's `done` callback as the body.
  it.each(SERVED.map(([method, path, body]) => ({ method, path, body })))(
    '$method $path is a route of the mux and is answered through it',
    async ({ method, path, body }) => {
      expect(server.mux.match(method, path.split('?')[0])).toBeDefined();
      const { res, dispatched } = await send(method, path, body);
      expect({ path, status: res.status < 300 ? 'ok' : `${res.status} ${res.body}` }).toEqual({ path, status: 'ok' });
      expect(dispatched).toBe(1);
    },
  );

  it.each([
    ['GET', '/nope'],
    ['GET', '/version/extra'],
    ['GET', '/versionx'],
    ['GET', '//version'],
    ['GET', '/apis/nope.example.com/v1'],
    ['GET', '/apis/nope.example.com/v1/widgets'],
    ['GET', '/api/v1/nopes'],
    ['GET', '/api/v9'],
    ['GET', '/openapi/v9'],
  ])('%s %s, which no route names, is a 404 Status from the mux', async (method, path) => {
    const { res, dispatched } = await send(method, path);
    expect(dispatched).toBe(1);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(res.body)).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 });
  });

  it('knows every path the server answers as a pattern, added once', () => {
    const patterns = server.mux.patterns();
    expect(new Set(patterns).size).toBe(patterns.length);
    expect(patterns).toEqual(
      expect.arrayContaining([
        '/version',
        '/healthz',
        '/metrics',
        '/api',
        '/apis',
        '/openapi/v2',
        '/api/{version}/{resource...}',
        '/apis/{group}/{version}/{resource...}',
      ]),
    );
  });
});
