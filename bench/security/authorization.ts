import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Agent } from 'node:https';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  bootstrapClusterRoleBindingObjects,
  bootstrapClusterRoleObjects,
  ensureClientCa,
  issueClientCertificate,
  NodeAuthorizer,
  NodeGraph,
  privilegedGroups,
  RbacAuthorizer,
  UnionAuthorizer,
  type AuthorizationAttributes,
} from '@svc/apiserver';
import { processCpuMicros } from '../apiserver/child-processes';
import { closedLoop, interleave, type ClosedLoopResult, type InterleaveOptions, type Side } from '../apiserver/closed-loop';
import { send, sendExpecting, type HttpsTarget } from '../apiserver/https-client';
import { startApiServer, type RunningServer } from '../apiserver/server-processes';
import { positiveFromEnv } from '../support/env-number';

/**
 * What authorization costs: GET and CREATE of a Secret by a user authenticated with a client
 * certificate (not in system:masters, so no shortcut), on API servers with `--authorization-mode`
 * AlwaysAllow, RBAC (the user bound to `edit` in the namespace) and Node,RBAC, measured in turn. Every
 * variant authenticates the same certificate, so the difference is the authorizers'. The client is
 * Node's keep-alive HTTPS agent (a client certificate needs it); its cost is the same on every side.
 */
const CONNECTIONS = positiveFromEnv('AUTHZ_BENCH_CONNECTIONS', 16);
const TIMING: InterleaveOptions = { warmupMs: 1000, rewarmMs: 200, durationMs: positiveFromEnv('AUTHZ_BENCH_SECONDS', 4) * 1000, rounds: 4 };
const NAMESPACE = 'default';
const USER = 'bench-user';
const secretsPath = `/api/v1/namespaces/${NAMESPACE}/secrets`;
const READY_WAIT_MS = 30_000;

interface Variant {
  name: string;
  flags: string[];
  server?: RunningServer;
  agent?: Agent;
}

function secret(name: string): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: NAMESPACE }, data: { token: randomBytes(600).toString('base64') } });
}

function agentFor(target: HttpsTarget, identity: { certPem: string; keyPem: string }, sockets: number): Agent {
  return new Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets, ca: target.ca, cert: identity.certPem, key: identity.keyPem });
}

function side(variant: Variant, label: string, operation: (window: number, worker: number, sequence: number) => Promise<unknown>): Side {
  let windows = 0;
  const pid = variant.server!.child.pid;
  return (warmupMs, durationMs) => {
    const window = windows++;
    return closedLoop({ concurrency: CONNECTIONS, warmupMs, durationMs, cpuMicros: () => processCpuMicros(pid) }, (worker, sequence) =>
      operation(window, worker, sequence).catch((error: unknown) => {
        throw new Error(`${label} on ${variant.name}: ${(error as Error).message}`);
      }),
    );
  };
}

function row(what: string, results: ClosedLoopResult[], names: string[]): void {
  const base = results[0];
  for (const [i, result] of results.entries()) {
    const cpu = result.cpuMicrosPerOperation ?? Number.NaN;
    console.log(
      `${what.padEnd(8)} ${names[i].padEnd(12)} ${result.perSecond.toFixed(0).padStart(7)} req/s  p50 ${result.p50.toFixed(2).padStart(6)} ms  ` +
        `p99 ${result.p99.toFixed(2).padStart(7)} ms  server CPU ${cpu.toFixed(0).padStart(5)} µs/req  ` +
        `rate vs AlwaysAllow ${(result.perSecond / base.perSecond).toFixed(2)}  server CPU vs AlwaysAllow ${(cpu / (base.cpuMicrosPerOperation ?? Number.NaN)).toFixed(2)}`,
    );
  }
}

const IN_PROCESS_CALLS = 200_000;

/**
 * The authorizers alone, in this process, on the question a GET of the Secret asks: CPU per decision.
 * The policy is the bootstrap one plus the user's binding; the node graph holds 1,000 pods.
 */
async function inProcess(): Promise<Array<[string, number]>> {
  const binding = {
    metadata: { name: 'bench-user-edit', namespace: NAMESPACE },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: USER }],
  };
  const objects = {
    roles: [],
    clusterRoles: bootstrapClusterRoleObjects(),
    roleBindings: [binding],
    clusterRoleBindings: bootstrapClusterRoleBindingObjects(),
  };
  const rbac = () => new RbacAuthorizer({ version: () => 'fixed', read: () => Promise.resolve(objects) });
  const graph = new NodeGraph();
  for (let i = 0; i < 1000; i++) {
    graph.setPod({
      metadata: { namespace: NAMESPACE, name: `p${i}` },
      spec: { nodeName: `n${i % 50}`, volumes: [{ name: 'v', secret: { secretName: `s${i}` } }] },
    });
  }
  const attributes: AuthorizationAttributes = {
    user: { name: USER, groups: ['bench', 'system:authenticated'] },
    verb: 'get',
    isResourceRequest: true,
    namespace: NAMESPACE,
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'secrets',
    subresource: '',
    name: 'read-me',
    path: '',
  };
  const results: Array<[string, number]> = [];
  for (const [name, union] of [
    ['RBAC', new UnionAuthorizer([privilegedGroups, rbac()])],
    ['Node,RBAC', new UnionAuthorizer([privilegedGroups, new NodeAuthorizer(graph), rbac()])],
  ] as const) {
    for (let i = 0; i < IN_PROCESS_CALLS / 10; i++) await union.authorize(attributes);
    const start = process.cpuUsage();
    for (let i = 0; i < IN_PROCESS_CALLS; i++) {
      if ((await union.authorize(attributes)).decision !== 'allow') throw new Error(`${name} did not allow the benchmark's request`);
    }
    const used = process.cpuUsage(start);
    results.push([name, (used.user + used.system) / IN_PROCESS_CALLS]);
  }
  return results;
}

/** Runs the authorization rows, each server in a scratch directory of its own. */
export async function runAuthorization(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-authz-bench-'));
  const variants: Variant[] = [
    { name: 'AlwaysAllow', flags: ['--authorization-mode=AlwaysAllow'] },
    { name: 'RBAC', flags: ['--authorization-mode=RBAC'] },
    { name: 'Node,RBAC', flags: ['--authorization-mode=Node,RBAC'] },
  ];
  try {
    for (const variant of variants) {
      const where = join(dir, `authz-${variant.name.replace(/\W/g, '-')}`);
      mkdirSync(where);
      variant.server = await startApiServer(where, variant.flags);
      const target = variant.server.target;
      const ca = await ensureClientCa(join(where, 'certs'));
      const admin = agentFor(target, await issueClientCertificate(ca, 'bench-admin', ['system:masters']), 1);
      const binding = {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'bench-user-edit', namespace: NAMESPACE },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: USER }],
      };
      await sendExpecting([201], admin, target, 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${NAMESPACE}/rolebindings`, JSON.stringify(binding));
      await sendExpecting([201], admin, target, 'POST', secretsPath, secret('read-me'));
      admin.destroy();
      variant.agent = agentFor(target, await issueClientCertificate(ca, USER, ['bench']), CONNECTIONS);
      // The binding reaches the authorizer through the watch cache: wait until the user may read.
      const deadline = Date.now() + READY_WAIT_MS;
      while ((await send(variant.agent, target, 'GET', `${secretsPath}/read-me`)).status !== 200) {
        if (Date.now() > deadline) throw new Error(`${USER} cannot read Secrets on ${variant.name}`);
        await sleep(100);
      }
    }
    const names = variants.map((v) => v.name);
    console.log(
      `authorization: ${CONNECTIONS} keep-alive connections with a client certificate (user ${USER}, bound to edit), ` +
        `${TIMING.durationMs / 1000} s per row in ${TIMING.rounds} alternating windows`,
    );
    const reads = variants.map((v) => side(v, 'GET secret', () => sendExpecting([200], v.agent!, v.server!.target, 'GET', `${secretsPath}/read-me`)));
    const getResults = await interleave(reads, TIMING);
    row('GET', getResults, names);
    const creates = variants.map((v) =>
      side(v, 'POST secret', (window, worker, sequence) =>
        sendExpecting([201], v.agent!, v.server!.target, 'POST', secretsPath, secret(`s-${window}-${worker}-${sequence}`)),
      ),
    );
    const createResults = await interleave(creates, TIMING);
    row('CREATE', createResults, names);
    const getCpu = getResults[0].cpuMicrosPerOperation ?? Number.NaN;
    const createCpu = createResults[0].cpuMicrosPerOperation ?? Number.NaN;
    for (const [name, micros] of await inProcess()) {
      console.log(
        `authorize ${name.padEnd(10)} in process ${micros.toFixed(2).padStart(6)} µs CPU per decision: ` +
          `${((100 * micros) / getCpu).toFixed(2)}% of an AlwaysAllow GET's server CPU, ${((100 * micros) / createCpu).toFixed(2)}% of a CREATE's`,
      );
    }
  } finally {
    for (const variant of [...variants].reverse()) {
      variant.agent?.destroy();
      await variant.server?.child.stop();
    }
    rmSync(dir, { recursive: true, force: true });
  }
}
