import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureClientCa, issueClientCertificate, type IssuedCertificate } from '@svc/apiserver';
import { httpsCall } from '@svc/apiserver/testing';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';

// The request-header front proxy as a proxy meets it: a client certificate of the front-proxy CA with an
// allowed CommonName asserts the user in X-Remote-* headers; any other caller's such headers are dropped.

const run = promisify(execFile);

let server: ApiServerProcess;
let dir: string;
const certs: Record<string, IssuedCertificate> = {};

const WHOAMI = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
const REVIEW = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };

interface UserInfoAnswer {
  username: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** curl with one identity's certificate (or none) and repeatable headers. */
async function curl(who: string | undefined, method: string, path: string, headers: string[]): Promise<{ code: number; body: Record<string, unknown> }> {
  const identity = who === undefined ? [] : ['--cert', join(dir, `${who}.crt`), '--key', join(dir, `${who}.key`)];
  const body = method === 'POST' ? ['-H', 'Content-Type: application/json', '-d', JSON.stringify(REVIEW)] : [];
  const args = [
    '-s',
    '--cacert',
    join(dir, 'serving-ca.crt'),
    '-X',
    method,
    ...identity,
    ...body,
    ...headers.flatMap((h) => ['-H', h]),
    '-w',
    '\n%{http_code}',
  ];
  const { stdout } = await run('curl', [...args, `${server.url}${path}`]);
  const at = stdout.lastIndexOf('\n');
  return { code: Number(stdout.slice(at + 1)), body: JSON.parse(stdout.slice(0, at)) as Record<string, unknown> };
}

function userInfo(answer: { body: Record<string, unknown> }): UserInfoAnswer {
  return (answer.body.status as { userInfo: UserInfoAnswer }).userInfo;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-requestheader-e2e-'));
  const proxyCa = await ensureClientCa(join(dir, 'proxy-ca'));
  const userCa = await ensureClientCa(join(dir, 'user-ca'));
  certs['front-proxy'] = await issueClientCertificate(proxyCa, 'front-proxy');
  certs['other-proxy'] = await issueClientCertificate(proxyCa, 'other-proxy');
  certs.carol = await issueClientCertificate(userCa, 'carol', ['team-a']);
  for (const [name, cert] of Object.entries(certs)) {
    await writeFile(join(dir, `${name}.crt`), cert.certPem);
    await writeFile(join(dir, `${name}.key`), cert.keyPem, { mode: 0o600 });
  }
  server = await startApiServerProcess({
    args: [
      '--authorization-mode=RBAC',
      `--client-ca-file=${userCa.certFile}`,
      `--requestheader-client-ca-file=${proxyCa.certFile}`,
      '--requestheader-allowed-names=front-proxy',
      '--requestheader-username-headers=X-Remote-User',
      '--requestheader-group-headers=X-Remote-Group',
      '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    ],
  });
  await writeFile(join(dir, 'serving-ca.crt'), server.ca);
}, 90_000);

afterAll(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('request-header authentication', () => {
  it('takes the user, every group line and the extras from the headers of the front proxy', async () => {
    const answer = await curl('front-proxy', 'POST', WHOAMI, [
      'X-Remote-User: dana',
      'X-Remote-Group: devs',
      'X-Remote-Group: qa',
      'X-Remote-Extra-Scopes: read',
      'X-Remote-Extra-Scopes: write',
      'X-Remote-Extra-Acme.com%2Fproject: p1',
    ]);
    expect(answer.code).toBe(201);
    expect(userInfo(answer)).toEqual({
      username: 'dana',
      groups: ['devs', 'qa', 'system:authenticated'],
      extra: { scopes: ['read', 'write'], 'acme.com/project': ['p1'] },
    });
  });

  it('lets the front proxy act for an administrator (the headers decide, not the proxy certificate)', async () => {
    const cert = certs['front-proxy'];
    const answer = await httpsCall(
      server.url,
      server.ca,
      'GET',
      '/api/v1/namespaces',
      { 'X-Remote-User': 'ops', 'X-Remote-Group': 'system:masters' },
      undefined,
      {
        cert: cert.certPem,
        key: cert.keyPem,
      },
    );
    expect(answer.status).toBe(200);
    expect(answer.body.kind).toBe('NamespaceList');
  });

  it('answers 401 with a Status to a proxy certificate whose name is not allowed', async () => {
    const answer = await curl('other-proxy', 'GET', '/api/v1/namespaces', ['X-Remote-User: dana', 'X-Remote-Group: system:masters']);
    expect(answer.code).toBe(401);
    expect(answer.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 });
  });

  it('answers 401 to a proxy certificate that asserts nobody (it is no client certificate of --client-ca-file)', async () => {
    const answer = await curl('front-proxy', 'GET', '/api/v1/namespaces', []);
    expect(answer.code).toBe(401);
    expect(answer.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });

  it('ignores the headers of a client certificate of another CA: the certificate is the identity', async () => {
    const answer = await curl('carol', 'POST', WHOAMI, ['X-Remote-User: admin', 'X-Remote-Group: system:masters', 'X-Remote-Extra-Scopes: all']);
    expect(answer.code).toBe(201);
    expect(userInfo(answer)).toEqual({ username: 'carol', groups: ['team-a', 'system:authenticated'] });
  });

  it('ignores the headers of a caller without a certificate: it stays anonymous', async () => {
    const answer = await curl(undefined, 'GET', '/api/v1/namespaces', ['X-Remote-User: admin', 'X-Remote-Group: system:masters']);
    expect(answer.code).toBe(403);
    expect(answer.body.message).toBe('namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope');
  });
});
