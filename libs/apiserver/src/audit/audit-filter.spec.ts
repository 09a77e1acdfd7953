import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { requestContext } from '../request/request-context';
import type { AuditBackend } from './audit-backend';
import type { AuditEvent } from './audit-event';
import { withAudit, withAuditId, withFailedAuthenticationAudit, type AuditRuntime } from './audit-filter';
import { parseAuditPolicy } from './audit-policy';

type Handler = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

/** A loopback HTTP server running the given filters in order, then answering 200 `{}`. */
async function serve(filters: Handler[]): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const run = (index: number): void => {
      if (index === filters.length) {
        res.setHeader('Content-Type', 'application/json');
        res.end('{"kind":"ConfigMap"}');
        return;
      }
      filters[index](req, res, () => run(index + 1));
    };
    run(0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: IncomingMessage['headers'] }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    })
      .on('error', reject)
      .end();
  });
}

describe('the audit filters', () => {
  const events: AuditEvent[] = [];
  const backend: AuditBackend = { processEvents: (e) => (events.push(...e), true), shutdown: async () => undefined };
  const audit: AuditRuntime = { policy: parseAuditPolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: RequestResponse\n'), backend };
  // Stands in for authentication: refuses one header value, names the caller otherwise.
  const authenticate: Handler = (req, res, next) => {
    if (req.headers.authorization === 'Bearer bad') {
      res.statusCode = 401;
      res.setHeader('Content-Type', 'application/json');
      res.end('{"kind":"Status","status":"Failure","reason":"Unauthorized","code":401,"message":"Unauthorized"}');
      return;
    }
    requestContext(req).user = { name: 'alice', groups: ['dev', 'system:authenticated'] };
    next();
  };
  // Stands in for impersonation, which runs after audit.
  const impersonate: Handler = (req, _res, next) => {
    const as = req.headers['impersonate-user'];
    if (typeof as === 'string') {
      const context = requestContext(req);
      context.impersonatedBy = context.user;
      context.user = { name: as, groups: ['system:authenticated'] };
    }
    next();
  };

  let server: Server;
  let url: string;
  beforeAll(async () => {
    ({ server, url } = await serve([withAuditId(), withFailedAuthenticationAudit(audit), authenticate, withAudit(audit), impersonate]));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => events.splice(0));

  it('records the authenticated caller and, once impersonation ran, whom it acted as', async () => {
    const answer = await get(`${url}/api/v1/namespaces/a/configmaps/c`, { 'Impersonate-User': 'bob', 'Audit-ID': 'imp-1' });
    expect(answer.headers['audit-id']).toBe('imp-1');
    expect(events.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseComplete']);
    expect(events[0].user).toEqual({ username: 'alice', groups: ['dev', 'system:authenticated'] });
    expect(events[0].impersonatedUser).toBeUndefined();
    expect(events[1].user).toEqual({ username: 'alice', groups: ['dev', 'system:authenticated'] });
    expect(events[1].impersonatedUser).toEqual({ username: 'bob', groups: ['system:authenticated'] });
    expect(events[1].responseObject).toEqual({ kind: 'ConfigMap' });
    expect(events[1].objectRef).toEqual({ resource: 'configmaps', namespace: 'a', name: 'c', apiVersion: 'v1' });
  });

  it('records the media types a request body and its answer went over the wire in', async () => {
    await new Promise<void>((resolve, reject) => {
      const body = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
      request(`${url}/api/v1/namespaces/a/configmaps`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf', 'Content-Length': body.length },
      })
        .on('response', (res) => res.resume().on('end', resolve))
        .on('error', reject)
        .end(body);
    });
    expect(events[0].annotations).toEqual({ 'audit.svc.io/request-content-type': 'application/vnd.kubernetes.protobuf' });
    expect(events[1].annotations).toEqual({
      'audit.svc.io/request-content-type': 'application/vnd.kubernetes.protobuf',
      'audit.svc.io/response-content-type': 'application/json',
    });
    await get(`${url}/api/v1/namespaces/a/configmaps/c`);
    // A read has no body: only the answer's type.
    expect(events[2].annotations).toBeUndefined();
    expect(events[3].annotations).toEqual({ 'audit.svc.io/response-content-type': 'application/json' });
  });

  it('audits a request refused by authentication once, at ResponseStarted, with no user', async () => {
    const answer = await get(`${url}/api/v1/pods`, { Authorization: 'Bearer bad' });
    expect(answer.status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ stage: 'ResponseStarted', user: { username: '' }, verb: 'list', responseStatus: { code: 401, reason: 'Unauthorized' } });
  });
});
