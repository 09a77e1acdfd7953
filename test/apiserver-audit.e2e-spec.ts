// Audit through the real API server process: one log line per request stage as the policy says,
// rotation of the log file, the legacy format on standard out, and batches to a loopback webhook.
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAuditPolicy, servingConfig, startApiServer } from '@svc/apiserver';
import { eventually } from '@svc/runtime/testing';
import { testRoutes } from './support/test-routes';
import { ROOT, startApiServerProcess, type ApiServerProcess } from './support/apiserver-process';
import { httpsFetch } from './support/https-client';
import { kubectl } from './support/kubectl-run';

interface AuditLine {
  kind: string;
  apiVersion: string;
  level: string;
  auditID: string;
  stage: string;
  requestURI: string;
  verb: string;
  user: { username: string; groups?: string[] };
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: { resource?: string; namespace?: string; name?: string; apiVersion?: string };
  responseStatus?: { code?: number; reason?: string; message?: string };
  requestObject?: { data?: Record<string, string>; metadata?: { managedFields?: unknown } };
  responseObject?: { data?: Record<string, string>; metadata?: { managedFields?: unknown } };
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  - level: None
    nonResourceURLs: ["/readyz*", "/livez*", "/healthz*"]
  - level: RequestResponse
    users: ["someone-else"]
  - level: Metadata
    resources:
      - group: ""
        resources: ["secrets"]
  - level: RequestResponse
    namespaces: ["audited"]
    resources:
      - group: ""
        resources: ["configmaps"]
    omitManagedFields: true
  - level: Request
    verbs: ["create"]
    omitStages: ["RequestReceived"]
  - level: Metadata
    userGroups: ["system:unauthenticated"]
`;

const readLines = (file: string): AuditLine[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as AuditLine)
    : [];

describe('audit log (--audit-policy-file, --audit-log-path)', () => {
  let dir: string;
  let server: ApiServerProcess;
  let log: string;
  const headers = { 'Content-Type': 'application/json' };
  const call = (method: string, path: string, body?: unknown, extra: Record<string, string> = {}) =>
    httpsFetch(`${server.url}${path}`, {
      method,
      ca: server.ca,
      headers: { ...headers, ...extra },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const linesOf = (id: string) => readLines(log).filter((l) => l.auditID === id);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-audit-e2e-'));
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    log = join(dir, 'audit', 'audit.log');
    server = await startApiServerProcess({ args: [`--audit-policy-file=${join(dir, 'policy.yaml')}`, `--audit-log-path=${log}`] });
    await call('POST', '/api/v1/namespaces', { metadata: { name: 'audited' } });
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers every request with an Audit-Id, the client’s own when it sent one', async () => {
    const own = await call('GET', '/api/v1/namespaces/default/pods', undefined, { 'Audit-ID': 'client-chosen-id' });
    expect(own.headers['audit-id']).toBe('client-chosen-id');
    const fresh = await call('GET', '/readyz');
    expect(fresh.headers['audit-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(statSync(log).mode & 0o777).toBe(0o600);
  });

  it('logs a Secret at Metadata only: two stages, no object, no value anywhere in the log', async () => {
    await kubectl(['create', 'secret', 'generic', 'hidden', '--from-literal=password=never-in-the-audit-log'], server.kubectlEnv);
    await eventually(async () => {
      const lines = readLines(log).filter((l) => l.objectRef?.resource === 'secrets' && l.verb === 'create');
      expect(lines.map((l) => l.stage)).toEqual(['RequestReceived', 'ResponseComplete']);
      for (const line of lines) {
        expect(line).toMatchObject({
          kind: 'Event',
          apiVersion: 'audit.svc.io/v1',
          level: 'Metadata',
          requestURI: expect.stringMatching(/^\/api\/v1\/namespaces\/default\/secrets\?fieldManager=kubectl-create&/) as string,
        });
        expect(line.requestObject).toBeUndefined();
        expect(line.responseObject).toBeUndefined();
        // kubectl uses the connection file the server wrote: its administrator's client certificate.
        expect(line.user).toEqual({ username: 'svc-admin', groups: ['system:masters', 'system:authenticated'] });
        expect(line.sourceIPs).toEqual(['127.0.0.1']);
        expect(line.userAgent).toMatch(/^kubectl/);
        expect(line.objectRef).toEqual({ resource: 'secrets', namespace: 'default', apiVersion: 'v1' });
        expect(line.stageTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      }
      expect(lines[1].responseStatus).toEqual({ metadata: {}, code: 201 });
      expect(lines[0].auditID).toBe(lines[1].auditID);
    });
    const text = readFileSync(log, 'utf8');
    expect(text).not.toContain('never-in-the-audit-log');
    expect(text).not.toContain(Buffer.from('never-in-the-audit-log').toString('base64'));
  });

  it('logs bodies by level: RequestResponse in a namespace (without managedFields), Request without its omitted stage', async () => {
    const full = await call('POST', '/api/v1/namespaces/audited/configmaps', { metadata: { name: 'full' }, data: { k: 'v1' } }, { 'Audit-ID': 'full-1' });
    expect(full.status).toBe(201);
    const partial = await call(
      'POST',
      '/api/v1/namespaces/default/configmaps',
      { metadata: { name: 'partial' }, data: { k: 'v2' } },
      { 'Audit-ID': 'partial-1' },
    );
    expect(partial.status).toBe(201);
    await eventually(async () => {
      const lines = linesOf('full-1');
      expect(lines.map((l) => [l.stage, l.level])).toEqual([
        ['RequestReceived', 'RequestResponse'],
        ['ResponseComplete', 'RequestResponse'],
      ]);
      expect(lines[0].requestObject).toBeUndefined();
      expect(lines[1].requestObject?.data).toEqual({ k: 'v1' });
      expect(lines[1].responseObject?.data).toEqual({ k: 'v1' });
      expect(lines[1].responseObject?.metadata?.managedFields).toBeUndefined();
      const partialLines = linesOf('partial-1');
      expect(partialLines.map((l) => [l.stage, l.level])).toEqual([['ResponseComplete', 'Request']]);
      expect(partialLines[0].requestObject?.data).toEqual({ k: 'v2' });
      expect(partialLines[0].responseObject).toBeUndefined();
    });
  });

  it('matches the caller’s group where no user rule matches, logs no health probe, and records a failure’s status', async () => {
    const missing = await call('GET', '/api/v1/namespaces/default/pods/nope', undefined, { 'Audit-ID': 'missing-1' });
    expect(missing.status).toBe(404);
    await call('GET', '/readyz', undefined, { 'Audit-ID': 'probe-1' });
    await eventually(async () => {
      const lines = linesOf('missing-1');
      expect(lines.map((l) => [l.stage, l.level])).toEqual([
        ['RequestReceived', 'Metadata'],
        ['ResponseComplete', 'Metadata'],
      ]);
      expect(lines[1].responseStatus).toEqual({ metadata: {}, status: 'Failure', reason: 'NotFound', code: 404, message: 'pods "nope" not found' });
    });
    expect(linesOf('probe-1')).toEqual([]);
  });

  it('annotates events with the authorization decision and with PodSecurity’s enforced level and audit violations', async () => {
    const labels = { 'pod-security.kubernetes.io/audit': 'restricted' };
    expect((await call('POST', '/api/v1/namespaces', { metadata: { name: 'psa-audit', labels } })).status).toBe(201);
    const pod = { metadata: { name: 'plain' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };
    expect((await call('POST', '/api/v1/namespaces/psa-audit/pods', pod, { 'Audit-ID': 'psa-1' })).status).toBe(201);
    await eventually(async () => {
      const complete = linesOf('psa-1').find((l) => l.stage === 'ResponseComplete');
      expect(complete?.annotations).toEqual({
        'authorization.k8s.io/decision': 'allow',
        'authorization.k8s.io/reason': '',
        'pod-security.kubernetes.io/enforce-policy': 'privileged:latest',
        // The media types the body and the answer went over the wire in (a JSON request here).
        'audit.svc.io/request-content-type': 'application/json',
        'audit.svc.io/response-content-type': 'application/json',
        'pod-security.kubernetes.io/audit-violations': expect.stringMatching(
          /^would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false \(container "c" must set/,
        ),
      });
    });
    // The pod was admitted: the audit level records, it never refuses.
    expect((await call('GET', '/api/v1/namespaces/psa-audit/pods/plain')).status).toBe(200);
  });

  it('writes ResponseStarted for a watch', async () => {
    const watch = await call('GET', '/api/v1/namespaces/default/pods?watch=true&timeoutSeconds=1', undefined, { 'Audit-ID': 'watch-1' });
    expect(watch.status).toBe(200);
    await eventually(async () => expect(linesOf('watch-1').map((l) => l.stage)).toEqual(['RequestReceived', 'ResponseStarted', 'ResponseComplete']));
  });
});

describe('audit log rotation, legacy format and the webhook backend', () => {
  let dir: string;
  let webhook: Server;
  const batches: Array<{ kind: string; apiVersion: string; items: AuditLine[] }> = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-audit-e2e-'));
    writeFileSync(
      join(dir, 'policy.yaml'),
      'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: None\n  nonResourceURLs: ["/readyz"]\n- level: RequestResponse\n',
    );
    webhook = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        batches.push(JSON.parse(Buffer.concat(chunks).toString()) as (typeof batches)[number]);
        res.writeHead(200).end('{}');
      });
    });
    await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
    const port = (webhook.address() as AddressInfo).port;
    writeFileSync(
      join(dir, 'webhook.yaml'),
      `apiVersion: v1\nkind: Config\nclusters:\n- name: sink\n  cluster:\n    server: http://127.0.0.1:${port}/audit\ncontexts:\n- name: sink\n  context:\n    cluster: sink\n    user: sink\nusers:\n- name: sink\n  user: {}\ncurrent-context: sink\n`,
    );
  });
  afterAll(async () => {
    await new Promise((resolve) => webhook.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('rotates the log by size into gzipped backups, keeps --audit-log-maxbackup, and sends batches to the webhook', async () => {
    const log = join(dir, 'logs', 'audit.log');
    const server = await startApiServerProcess({
      args: [
        `--audit-policy-file=${join(dir, 'policy.yaml')}`,
        `--audit-log-path=${log}`,
        '--audit-log-maxsize=1',
        '--audit-log-maxbackup=1',
        '--audit-log-compress',
        '--audit-log-mode=batch',
        '--audit-log-batch-max-size=10',
        '--audit-log-batch-max-wait=200ms',
        `--audit-webhook-config-file=${join(dir, 'webhook.yaml')}`,
        '--audit-webhook-version=audit.k8s.io/v1',
        '--audit-webhook-batch-max-size=3',
        '--audit-webhook-batch-max-wait=500ms',
      ],
    });
    try {
      const big = 'x'.repeat(300 * 1024);
      for (let i = 0; i < 6; i++) {
        const created = await httpsFetch(`${server.url}/api/v1/namespaces/default/configmaps`, {
          method: 'POST',
          ca: server.ca,
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ metadata: { name: `big-${i}` }, data: { v: big } }),
        });
        expect(created.status).toBe(201);
      }
      await eventually(async () => {
        const backups = readdirSync(join(dir, 'logs')).filter((n) => n !== 'audit.log');
        expect(backups).toHaveLength(1);
        expect(backups[0]).toMatch(/^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log\.gz$/);
        expect(statSync(log).size).toBeLessThanOrEqual(1024 * 1024);
      });
      await eventually(async () => {
        const items = batches.flatMap((b) => b.items).filter((e) => e.verb === 'create' && e.objectRef?.resource === 'configmaps');
        expect(items).toHaveLength(6);
        for (const b of batches) expect(b).toMatchObject({ kind: 'EventList', apiVersion: 'audit.k8s.io/v1' });
        expect(batches.every((b) => b.items.length <= 3)).toBe(true);
        expect(items[0]).toMatchObject({ apiVersion: 'audit.k8s.io/v1', stage: 'ResponseComplete', level: 'RequestResponse' });
      });
    } finally {
      await server.stop();
    }
  }, 120_000);

  it('writes the legacy format to standard out with --audit-log-path=-', async () => {
    const server = await startApiServerProcess({
      args: [`--audit-policy-file=${join(dir, 'policy.yaml')}`, '--audit-log-path=-', '--audit-log-format=legacy'],
    });
    try {
      await httpsFetch(`${server.url}/api/v1/namespaces/default/pods`, { ca: server.ca, headers: { 'Audit-ID': 'legacy-1', 'User-Agent': 'tester' } });
      await eventually(async () =>
        expect(server.stdout()).toMatch(
          /\d{4}-\d\d-\d\dT[\d:.]+Z AUDIT: id="legacy-1" stage="ResponseComplete" ip="127.0.0.1" method="list" user="system:anonymous" groups="\\"system:unauthenticated\\"" as="<self>" asgroups="<lookup>" user-agent="tester" namespace="default" uri="\/api\/v1\/namespaces\/default\/pods" response="200"\n/,
        ),
      );
    } finally {
      await server.stop();
    }
  });

  it('never holds a request for a webhook that does not answer in batch mode; blocking-strict fails the request instead', async () => {
    const held: Array<() => void> = [];
    const silent = createServer((req) => {
      req.resume();
      held.push(() => req.socket.destroy());
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentPort = (silent.address() as AddressInfo).port;
    const config = (port: number, name: string) => {
      const file = join(dir, name);
      writeFileSync(
        file,
        `apiVersion: v1\nkind: Config\nclusters:\n- name: s\n  cluster:\n    server: http://127.0.0.1:${port}/\ncontexts:\n- name: s\n  context:\n    cluster: s\n    user: s\nusers:\n- name: s\n  user: {}\ncurrent-context: s\n`,
      );
      return file;
    };
    const policy = `--audit-policy-file=${join(dir, 'policy.yaml')}`;
    const batch = await startApiServerProcess({
      args: [
        policy,
        `--audit-webhook-config-file=${config(silentPort, 'silent.yaml')}`,
        '--audit-webhook-batch-max-size=1',
        '--audit-webhook-batch-buffer-size=5',
      ],
    });
    try {
      for (let i = 0; i < 30; i++) {
        const started = Date.now();
        const answer = await httpsFetch(`${batch.url}/api/v1/namespaces/default/configmaps`, { ca: batch.ca });
        expect(answer.status).toBe(200);
        // Far below the webhook's 30 s deadline: the request only appended to the buffer.
        expect(Date.now() - started).toBeLessThan(10_000);
      }
      await eventually(async () => expect(batch.stdout() + batch.stderr()).toContain('audit webhook: buffer full'), 15_000);
    } finally {
      await batch.stop();
      for (const release of held) release();
      await new Promise((resolve) => silent.close(resolve));
    }

    // Nothing listens on port 1: every attempt is refused. RequestReceived is what blocking-strict guards.
    writeFileSync(
      join(dir, 'all-stages.yaml'),
      'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: ["/readyz"]\n- level: Metadata\n',
    );
    const strict = await startApiServerProcess({
      args: [
        `--audit-policy-file=${join(dir, 'all-stages.yaml')}`,
        `--audit-webhook-config-file=${config(1, 'closed.yaml')}`,
        '--audit-webhook-mode=blocking-strict',
        '--audit-webhook-initial-backoff=10ms',
      ],
    });
    try {
      const refused = await httpsFetch(`${strict.url}/api/v1/namespaces/default/configmaps`, { ca: strict.ca });
      expect(refused.status).toBe(500);
      expect(JSON.parse(refused.body)).toMatchObject({ kind: 'Status', code: 500, message: 'Internal error occurred: failed to store audit event' });
      expect((await httpsFetch(`${strict.url}/readyz`, { ca: strict.ca })).status).toBe(200);
    } finally {
      await strict.stop();
    }
  }, 120_000);

  it('refuses a policy it cannot honour: exit 2 with one line', () => {
    writeFileSync(join(dir, 'bad-policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Everything\n');
    const result = spawnSync(
      process.execPath,
      [join(ROOT, 'bin', 'svc-apiserver.js'), `--audit-policy-file=${join(dir, 'bad-policy.yaml')}`, '--audit-log-path=-'],
      {
        encoding: 'utf8',
        timeout: 20_000,
      },
    );
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringContaining('--audit-policy-file')]);
    expect(result.stderr).toContain('rules[0].level must be one of None, Metadata, Request, RequestResponse');
  });
});

describe('audit of a handler that fails unexpectedly', () => {
  it('writes the Panic stage with the 500 it answered', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-audit-panic-'));
    const log = join(dir, 'audit.log');
    const server = await startApiServer(servingConfig({ bindAddress: '127.0.0.1', securePort: 0, certDir: dir, svcconfigOut: '' }), [testRoutes], {
      logger: false,
      audit: {
        policy: parseAuditPolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n'),
        log: {
          path: log,
          format: 'json',
          version: 'audit.k8s.io/v1',
          mode: 'blocking',
          maxAgeDays: 0,
          maxBackups: 0,
          maxSizeMb: 0,
          compress: false,
          batch: { bufferSize: 10, maxSize: 1, maxWaitMs: 1000 },
        },
      },
    });
    try {
      const answer = await httpsFetch(`${server.url}/test/fail`, { ca: server.certificates.caPem, headers: { 'Audit-ID': 'panic-1' } });
      expect(answer.status).toBe(500);
      await eventually(async () =>
        expect(readLines(log).map((l) => [l.stage, l.responseStatus?.code])).toEqual([
          ['RequestReceived', undefined],
          ['Panic', 500],
        ]),
      );
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
