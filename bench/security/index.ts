import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { interleave, type ClosedLoopResult, type InterleaveOptions, type Side } from '../apiserver/closed-loop';
import { httpSide } from '../apiserver/http-load';
import { keepAliveAgent, sendExpecting } from '../apiserver/https-client';
import { requestBytes } from '../apiserver/keep-alive-connection';
import { startApiServer, type RunningServer } from '../apiserver/server-processes';
import { runAuthorization } from './authorization';

/**
 * What audit and encryption at rest cost: GET and CREATE of a Secret on three API servers measured in
 * turn — neither on; an audit log at Metadata for Secrets (npm start's policy shape, blocking mode) and
 * RequestResponse for the rest; Secrets encrypted with aescbc. Counts and durations are fixed.
 */
const CONNECTIONS = Number(process.env.SECURITY_BENCH_CONNECTIONS ?? 16);
const TIMING: InterleaveOptions = { warmupMs: 1000, rewarmMs: 200, durationMs: Number(process.env.SECURITY_BENCH_SECONDS ?? 4) * 1000, rounds: 4 };
const NAMESPACE = 'default';
const secretsPath = `/api/v1/namespaces/${NAMESPACE}/secrets`;

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: None
    nonResourceURLs: ["/readyz*"]
  - level: Metadata
    resources: [{ group: "", resources: ["secrets", "configmaps"] }]
  - level: RequestResponse
`;

function secret(name: string): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: NAMESPACE }, data: { token: randomBytes(600).toString('base64') } });
}

function reads(server: RunningServer): Side {
  const request = requestBytes(server.target, 'GET', `${secretsPath}/read-me`);
  return httpSide({ target: server.target, pid: server.child.pid, label: 'GET secret', request: () => request, expected: [200] }, CONNECTIONS);
}

function creates(server: RunningServer): Side {
  const request = (window: number, worker: number, sequence: number): Buffer =>
    requestBytes(server.target, 'POST', secretsPath, secret(`s-${window}-${worker}-${sequence}`));
  return httpSide({ target: server.target, pid: server.child.pid, label: 'POST secret', request, expected: [201] }, CONNECTIONS);
}

function row(what: string, results: ClosedLoopResult[], names: string[]): void {
  const base = results[0].perSecond;
  for (const [i, result] of results.entries()) {
    console.log(
      `${what.padEnd(8)} ${names[i].padEnd(22)} ${result.perSecond.toFixed(0).padStart(7)} req/s  p50 ${result.p50.toFixed(2).padStart(6)} ms  ` +
        `p99 ${result.p99.toFixed(2).padStart(7)} ms  server CPU ${(result.cpuMicrosPerOperation ?? Number.NaN).toFixed(0).padStart(5)} µs/req  ` +
        `rate vs plain ${(result.perSecond / base).toFixed(2)}`,
    );
  }
}

export async function run(): Promise<void> {
  // SECURITY_BENCH_ONLY=authorization runs only the authorization rows.
  if (process.env.SECURITY_BENCH_ONLY !== 'authorization') await auditAndEncryption();
  await runAuthorization();
}

async function auditAndEncryption(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-security-bench-'));
  const servers: RunningServer[] = [];
  try {
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    writeFileSync(
      join(dir, 'encryption.yaml'),
      `apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: [secrets]\n    providers:\n      - aescbc:\n          keys:\n            - name: k\n              secret: ${randomBytes(32).toString('base64')}\n`,
      { mode: 0o600 },
    );
    const variants: Array<[string, string[]]> = [
      ['plain', []],
      ['audit log (blocking)', [`--audit-policy-file=${join(dir, 'policy.yaml')}`, `--audit-log-path=${join(dir, 'audit', 'audit.log')}`]],
      ['aescbc Secrets', [`--encryption-provider-config=${join(dir, 'encryption.yaml')}`]],
    ];
    for (const [name, flags] of variants) {
      mkdirSync(join(dir, name.replace(/\W/g, '-')));
      const server = await startApiServer(join(dir, name.replace(/\W/g, '-')), flags);
      servers.push(server);
      const agent = keepAliveAgent(server.target, 1);
      await sendExpecting([201], agent, server.target, 'POST', secretsPath, secret('read-me'));
      agent.destroy();
    }
    const names = variants.map(([name]) => name);
    console.log(
      `security benchmark: ${CONNECTIONS} keep-alive connections, ${TIMING.durationMs / 1000} s per row in ${TIMING.rounds} alternating windows; ${cpus().length} CPUs, load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    row('GET', await interleave(servers.map(reads), TIMING), names);
    row('CREATE', await interleave(servers.map(creates), TIMING), names);
  } finally {
    for (const server of servers.reverse()) await server.child.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
