import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { decodePprof } from '@svc/machinery';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import { KubectlIdentities } from './support/kubectl-identities';

// `--profiling` (on by default, as in Kubernetes): `/debug/pprof/` serves CPU and heap profiles in
// pprof's format to callers RBAC allows the non-resource path, and nothing with `--profiling=false`.

let dir: string;
let server: ApiServerProcess;
let off: ApiServerProcess;
let as: KubectlIdentities;

/** GET as the administrator (the client certificate in the server's own connection file), body as bytes. */
async function adminGet(target: ApiServerProcess, path: string): Promise<{ status: number; body: Buffer }> {
  const config = parse(await readFile(target.kubeconfig, 'utf8')) as { users: Array<{ user: Record<string, string> }> };
  const user = config.users[0].user;
  const cert = Buffer.from(user['client-certificate-data'], 'base64');
  const key = Buffer.from(user['client-key-data'], 'base64');
  return new Promise((resolve, reject) => {
    const req = request(`${target.url}${path}`, { ca: target.ca, cert, key, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-profiling-e2e-'));
  [server, off] = await Promise.all([startApiServerProcess({ args: ['--authorization-mode=RBAC'] }), startApiServerProcess({ args: ['--profiling=false'] })]);
  as = new KubectlIdentities(server, dir);
  await as.withCertificate('dev', 'dev');
}, 120_000);

afterAll(async () => {
  await Promise.all([server?.stop(), off?.stop()]);
  await rm(dir, { recursive: true, force: true });
});

it('serves a CPU profile and the heap in pprof format, and an index', async () => {
  expect(await as.run('admin', 'get', '--raw', '/debug/pprof/')).toContain('profile');
  const cpu = await adminGet(server, '/debug/pprof/profile?seconds=1');
  expect(cpu.status).toBe(200);
  const profile = decodePprof(cpu.body) as { string_table: string[]; sample_type: Array<{ type: number }>; duration_nanos: number };
  expect(profile.sample_type.map((t) => profile.string_table[t.type])).toEqual(['samples', 'cpu']);
  expect(profile.duration_nanos).toBeGreaterThanOrEqual(900_000_000);
  const heap = await adminGet(server, '/debug/pprof/heap');
  expect(heap.status).toBe(200);
  const sampled = decodePprof(heap.body) as { string_table: string[]; sample: unknown[] };
  expect(sampled.sample.length).toBeGreaterThan(0);
}, 30_000);

it('answers bad parameters and unknown profiles with a Status, and asks RBAC first', async () => {
  const bad = await as.fails('admin', 'get', '--raw', '/debug/pprof/profile?seconds=0');
  expect(bad.stderr).toMatch(/BadRequest|seconds must be/);
  expect((await as.fails('admin', 'get', '--raw', '/debug/pprof/goroutine')).stderr).toMatch(/NotFound|not found/i);
  expect((await as.fails('dev', 'get', '--raw', '/debug/pprof/')).stderr).toMatch(/forbidden/i);
  await as.run('admin', 'create', 'clusterrole', 'profiler', '--verb=get', '--non-resource-url=/debug/*');
  await as.run('admin', 'create', 'clusterrolebinding', 'dev-profiler', '--clusterrole=profiler', '--user=dev');
  expect(await as.run('dev', 'get', '--raw', '/debug/pprof/')).toContain('heap');
}, 60_000);

it('serves nothing under /debug/pprof with --profiling=false', async () => {
  expect((await adminGet(off, '/debug/pprof/')).status).toBe(404);
  expect((await adminGet(off, '/debug/pprof/profile?seconds=1')).status).toBe(404);
});
