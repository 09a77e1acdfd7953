import { Agent } from 'node:https';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import { httpsFetch, type HttpsResponse } from './support/https-client';

// API Priority and Fairness on the real svc-apiserver process: a small seat budget (30), users of a
// token file (only the admin is in system:masters, which APF exempts), a flooding client beside
// well-behaved ones and a node renewing its Lease.

let server: ApiServerProcess;
let dir: string;
const agent = new Agent({ keepAlive: true, maxSockets: 512 });

interface Obj {
  metadata: { name: string; uid: string; resourceVersion?: string; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  status?: { conditions?: Array<{ type: string; status: string; reason: string; message: string }> };
}

function call(who: string, method: string, path: string, body?: unknown): Promise<HttpsResponse> {
  return httpsFetch(`${server.url}${path}`, {
    method,
    ca: server.ca,
    agent,
    headers: { Authorization: `Bearer ${who}-token`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

const parse = <T = Obj>(r: HttpsResponse): T => JSON.parse(r.body) as T;
const FC = '/apis/flowcontrol.apiserver.k8s.io/v1';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-apf-e2e-'));
  await writeFile(
    join(dir, 'tokens.csv'),
    [
      'admin-token,admin,uid-admin,system:masters',
      'flooder-token,flooder,uid-flooder,flooders',
      'writer-token,writer,uid-writer,writers',
      'tiny-token,tiny-user,uid-tiny,tiny',
      'node-token,system:node:apf-node,uid-node,system:nodes',
    ].join('\n') + '\n',
  );
  server = await startApiServerProcess({
    args: [
      '--authorization-mode=AlwaysAllow',
      `--token-auth-file=${join(dir, 'tokens.csv')}`,
      '--max-requests-inflight=20',
      '--max-mutating-requests-inflight=10',
    ],
  });
  // The suggested configuration is written by a post-start hook.
  await eventually(async () => expect((await call('admin', 'GET', `${FC}/flowschemas/global-default`)).status).toBe(200), 20_000);
}, 60_000);

afterAll(async () => {
  agent.destroy();
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

it('keeps the mandatory and suggested objects, and refuses a change to a mandatory spec with Kubernetes’ message', async () => {
  const schemas = parse<{ items: Obj[] }>(await call('admin', 'GET', `${FC}/flowschemas`)).items.map((s) => s.metadata.name);
  expect(schemas).toEqual(
    expect.arrayContaining([
      'exempt',
      'catch-all',
      'probes',
      'system-nodes',
      'system-node-high',
      'system-leader-election',
      'kube-controller-manager',
      'kube-scheduler',
      'service-accounts',
      'global-default',
    ]),
  );
  const levels = parse<{ items: Obj[] }>(await call('admin', 'GET', `${FC}/prioritylevelconfigurations`)).items.map((l) => l.metadata.name);
  expect(levels.sort()).toEqual(['catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low']);
  const catchAll = parse(await call('admin', 'GET', `${FC}/prioritylevelconfigurations/catch-all`));
  expect(catchAll.metadata.annotations?.['apf.kubernetes.io/autoupdate-spec']).toBe('true');
  const changed = await call('admin', 'PUT', `${FC}/prioritylevelconfigurations/catch-all`, {
    ...catchAll,
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 50, lendablePercent: 0, limitResponse: { type: 'Reject' } } },
  });
  expect(changed.status).toBe(422);
  expect(changed.body).toContain("spec of 'catch-all' must equal the fixed value");
});

it('names the flow schema and priority level of each request in its headers; system:masters is exempt', async () => {
  const schema = parse(await call('admin', 'GET', `${FC}/flowschemas/global-default`));
  const level = parse(await call('admin', 'GET', `${FC}/prioritylevelconfigurations/global-default`));
  const answer = await call('writer', 'GET', '/api/v1/namespaces/default/configmaps');
  expect(answer.status).toBe(200);
  expect(answer.headers['x-kubernetes-pf-flowschema-uid']).toBe(schema.metadata.uid);
  expect(answer.headers['x-kubernetes-pf-prioritylevel-uid']).toBe(level.metadata.uid);
  const exempt = parse(await call('admin', 'GET', `${FC}/flowschemas/exempt`));
  expect((await call('admin', 'GET', '/api/v1/namespaces')).headers['x-kubernetes-pf-flowschema-uid']).toBe(exempt.metadata.uid);
});

it('a client flooding LISTs does not delay another user’s writes or a node’s Lease renewals past their deadlines', async () => {
  // Objects enough that each LIST does real work.
  const blob = 'x'.repeat(2000);
  for (let i = 0; i < 60; i++) {
    expect((await call('admin', 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: `apf-load-${i}` }, data: { blob } })).status).toBe(201);
  }
  const lease = {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'apf-node' },
    spec: { holderIdentity: 'apf-node', leaseDurationSeconds: 40 },
  };
  expect((await call('node', 'POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', lease)).status).toBe(201);

  let flooding = true;
  const flood = { sent: 0, rejected: 0 };
  const flooders = Array.from({ length: 120 }, async () => {
    while (flooding) {
      const r = await call('flooder', 'GET', '/api/v1/configmaps');
      flood.sent++;
      if (r.status === 429) flood.rejected++;
    }
  });
  const writes: number[] = [];
  const renewals: number[] = [];
  const stopAt = Date.now() + 6_000;
  const writer = (async () => {
    for (let i = 0; Date.now() < stopAt; i++) {
      const start = Date.now();
      const r = await call('writer', 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: `apf-write-${i}` } });
      expect(r.status).toBe(201);
      writes.push(Date.now() - start);
    }
  })();
  const node = (async () => {
    while (Date.now() < stopAt) {
      const start = Date.now();
      const current = parse<Obj>(await call('node', 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/apf-node'));
      const r = await call('node', 'PUT', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/apf-node', {
        ...current,
        spec: { ...current.spec, renewTime: new Date().toISOString().replace('Z', '000Z') },
      });
      expect(r.status).toBe(200);
      renewals.push(Date.now() - start);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  await Promise.all([writer, node]);
  flooding = false;
  await Promise.all(flooders);
  // The flood was real (it kept its level's seats busy) and bounded.
  expect(flood.sent).toBeGreaterThan(100);
  expect(writes.length).toBeGreaterThan(5);
  // A node's lease lasts 40 s and is renewed every 10 s: each renewal must land well inside that; a write within its client's timeout.
  expect(Math.max(...renewals)).toBeLessThan(5_000);
  expect(Math.max(...writes)).toBeLessThan(5_000);
}, 60_000);

it('answers 429 with Retry-After when a level’s seats and queues are full, and counts it in the metrics', async () => {
  expect(
    (
      await call('admin', 'POST', `${FC}/prioritylevelconfigurations`, {
        metadata: { name: 'apf-tiny' },
        spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Reject' } } },
      })
    ).status,
  ).toBe(201);
  const made = await call('admin', 'POST', `${FC}/flowschemas`, {
    metadata: { name: 'apf-tiny' },
    spec: {
      priorityLevelConfiguration: { name: 'apf-tiny' },
      matchingPrecedence: 500,
      rules: [
        {
          subjects: [{ kind: 'Group', group: { name: 'tiny' } }],
          resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }],
        },
      ],
    },
  });
  expect(made.status).toBe(201);
  const uid = parse(made).metadata.uid;
  await eventually(
    async () => expect((await call('tiny', 'GET', '/api/v1/configmaps?limit=1')).headers['x-kubernetes-pf-flowschema-uid']).toBe(uid),
    10_000,
    100,
  );
  const answers = await Promise.all(Array.from({ length: 30 }, () => call('tiny', 'GET', '/api/v1/configmaps')));
  const refused = answers.filter((a) => a.status === 429);
  expect(refused.length).toBeGreaterThan(0);
  expect(refused[0].headers['retry-after']).toBe('1');
  expect(parse<{ reason: string; message: string }>(refused[0])).toMatchObject({
    reason: 'TooManyRequests',
    message: 'Too many requests, please try again later.',
  });
  const metrics = (await call('admin', 'GET', '/metrics')).body;
  expect(metrics).toMatch(/apiserver_flowcontrol_rejected_requests_total\{priority_level="apf-tiny",flow_schema="apf-tiny",reason="concurrency-limit"\} [1-9]/);
  expect(metrics).toMatch(/apiserver_flowcontrol_dispatched_requests_total\{priority_level="global-default",flow_schema="global-default"\} [1-9]/);
  expect(metrics).toContain('apiserver_flowcontrol_current_inqueue_requests');
  expect(metrics).toContain('apiserver_flowcontrol_request_wait_duration_seconds_bucket');
}, 30_000);

it('dumps the priority levels and queues at /debug/api_priority_and_fairness', async () => {
  const levels = await call('admin', 'GET', '/debug/api_priority_and_fairness/dump_priority_levels');
  expect(levels.status).toBe(200);
  const lines = levels.body.trim().split('\n');
  expect(lines[0]).toMatch(/^PriorityLevelName,\s+ActiveQueues,\s+IsIdle,\s+IsQuiescing,\s+WaitingRequests,\s+ExecutingRequests,/);
  expect(lines.some((l) => l.startsWith('global-default,'))).toBe(true);
  expect(lines.some((l) => /^exempt,\s+<none>/.test(l))).toBe(true);
  const queues = await call('admin', 'GET', '/debug/api_priority_and_fairness/dump_queues');
  expect(queues.body.split('\n').filter((l) => l.startsWith('workload-low,'))).toHaveLength(128);
});

it('marks a FlowSchema naming a missing level Dangling, and a schema matching nothing is accepted, not a 5xx', async () => {
  const made = await call('admin', 'POST', `${FC}/flowschemas`, {
    metadata: { name: 'apf-dangling' },
    spec: { priorityLevelConfiguration: { name: 'no-such-level' }, rules: [] },
  });
  expect(made.status).toBe(201);
  expect(parse(made).spec).toMatchObject({ matchingPrecedence: 1000 });
  const condition = await eventually(async () => {
    const got = parse(await call('admin', 'GET', `${FC}/flowschemas/apf-dangling`));
    const c = got.status?.conditions?.find((x) => x.type === 'Dangling');
    expect(c?.status).toBe('True');
    return c!;
  }, 10_000);
  expect(condition).toMatchObject({ reason: 'NotFound', message: expect.stringContaining('"no-such-level"') });
  const bad = await call('admin', 'POST', `${FC}/flowschemas`, {
    metadata: { name: 'apf-bad' },
    spec: { priorityLevelConfiguration: { name: '' }, matchingPrecedence: 1 },
  });
  expect(bad.status).toBe(422);
  expect(bad.body).toContain('must reference a priority level');
  expect(bad.body).toContain("only the schema named 'exempt' may have matchingPrecedence 1");
});
