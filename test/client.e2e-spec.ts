// libs/client against the real svc-apiserver executable: typed verbs, paging, watch, Status errors,
// and retry of an overloaded server (a loopback HTTPS stand-in for a remote server answering 429).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigMap, Deployment } from '@svc/api';
import { Client, loadClientConfig, type WatchEvent } from '@svc/client';
import { isAlreadyExists, isConflict, isInvalid, isNotFound, isStatus, type StatusError } from '@svc/machinery';
import { generate } from 'selfsigned';

const ROOT = join(__dirname, '..');
const NS = 'client-e2e';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const port = (probe.address() as AddressInfo).port;
      probe.close(() => resolve(port));
    });
  });
}

interface Server {
  child: ChildProcess;
  dir: string;
  svcconfig: string;
  stderr: () => string;
}

/** Starts the built executable on a free loopback port and waits for its connection file and /readyz. */
async function startApiServer(): Promise<Server> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-client-e2e-'));
  const svcconfig = join(dir, 'svcconfig');
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'bin', 'svc-apiserver.js'),
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
      `--data-dir=${join(dir, 'data')}`,
      `--cert-dir=${join(dir, 'certs')}`,
      `--svcconfig-out=${svcconfig}`,
    ],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`svc-apiserver exited before it was ready: ${stderr}`);
    if (Date.now() > deadline) throw new Error(`svc-apiserver was not ready in time: ${stderr}`);
    if (existsSync(svcconfig)) {
      const probe = new Client(await loadClientConfig({ svcconfig }));
      const ready = await probe.rest.requestText({ method: 'GET', path: '/readyz' }).then(
        () => true,
        () => false,
      );
      probe.close();
      if (ready) return { child, dir, svcconfig, stderr: () => stderr };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function stopApiServer(server: Server | undefined): Promise<void> {
  if (!server) return;
  if (server.child.exitCode === null) {
    const exited = new Promise((r) => server.child.once('exit', r));
    server.child.kill('SIGTERM');
    const timer = setTimeout(() => server.child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
  await rm(server.dir, { recursive: true, force: true });
}

const configMap = (name: string, data: Record<string, string>, labels?: Record<string, string>): ConfigMap => ({
  metadata: { name, labels },
  data,
});

const deployment = (name: string, replicas = 1): Deployment => ({
  metadata: { name, labels: { app: name } },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'registry.example/app:1.0' }] } },
  },
});

describe('client against the API server', () => {
  let server: Server;
  let client: Client;

  beforeAll(async () => {
    server = await startApiServer();
    // As the controller manager builds its client from its flags; a high rate keeps the suite fast.
    client = await Client.fromOptions({ svcconfig: server.svcconfig, svcApiQps: 1000, svcApiBurst: 1000, svcApiContentType: 'application/vnd.svc.protobuf' });
    expect(client.rest.config).toMatchObject({ qps: 1000, burst: 1000 });
    await client.namespaces.create({ metadata: { name: NS } });
  }, 60_000);

  afterAll(async () => {
    client?.close();
    await stopApiServer(server);
  });

  const configMaps = () => client.configMaps.inNamespace(NS);

  describe('ConfigMaps', () => {
    it('create, get, update, patch of every type, and delete', async () => {
      const created = await configMaps().create(configMap('crud', { a: '1' }));
      expect(created).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'crud', namespace: NS }, data: { a: '1' } });
      expect(created.metadata?.resourceVersion).toMatch(/^\d+$/);

      const got = await client.configMaps.get('crud', { namespace: NS });
      expect(got.metadata?.uid).toBe(created.metadata?.uid);

      const updated = await configMaps().update({ ...got, data: { a: '2' } });
      expect(updated.data).toEqual({ a: '2' });

      const merged = await configMaps().patch('crud', { data: { b: '3' } });
      expect(merged.data).toEqual({ a: '2', b: '3' });
      const jsonPatched = await configMaps().patch('crud', [{ op: 'remove', path: '/data/a' }], 'json');
      expect(jsonPatched.data).toEqual({ b: '3' });
      const strategic = await configMaps().patch('crud', { metadata: { labels: { tier: 'x' } } }, 'strategic');
      expect(strategic.metadata?.labels).toEqual({ tier: 'x' });
      const applied = await configMaps().apply({ metadata: { name: 'crud', namespace: NS }, data: { c: '4' } }, { fieldManager: 'client-e2e', force: true });
      expect(applied.data).toMatchObject({ c: '4' });
      expect(applied.metadata?.managedFields?.some((f) => f.manager === 'client-e2e' && f.operation === 'Apply')).toBe(true);

      const dryRun = await configMaps().delete('crud', { dryRun: true });
      expect(dryRun).toBeDefined();
      await expect(configMaps().get('crud')).resolves.toBeDefined();
      const deleted = await configMaps().delete('crud');
      expect(isStatus(deleted) ? deleted.status : deleted.metadata?.name).toBeTruthy();
      const missing = await configMaps()
        .get('crud')
        .catch((e: unknown) => e);
      expect(isNotFound(missing)).toBe(true);
    });

    it('surfaces a stale update as isConflict and a second create as isAlreadyExists', async () => {
      const first = await configMaps().create(configMap('conflict', { v: '1' }));
      await configMaps().update({ ...first, data: { v: '2' } });
      const stale = await configMaps()
        .update({ ...first, data: { v: '3' } })
        .catch((e: unknown) => e);
      expect(isConflict(stale)).toBe(true);
      expect((stale as StatusError).code).toBe(409);
      const again = await configMaps()
        .create(configMap('conflict', {}))
        .catch((e: unknown) => e);
      expect(isAlreadyExists(again)).toBe(true);
    });

    it('surfaces invalid objects as isInvalid with the field causes', async () => {
      const err = await configMaps()
        .create(configMap('Not_A_Valid_Name', {}))
        .catch((e: unknown) => e);
      expect(isInvalid(err)).toBe(true);
      expect((err as StatusError).status.details?.causes?.some((c) => c.field === 'metadata.name')).toBe(true);
    });

    it('pages a list with limit and continue, and listAll reads every page at one resourceVersion', async () => {
      for (let i = 0; i < 7; i++) await configMaps().create(configMap(`page-${i}`, { i: String(i) }, { set: 'paging' }));
      const first = await configMaps().list({ labelSelector: 'set=paging', limit: 3 });
      expect(first.items).toHaveLength(3);
      expect(first.metadata.continue).toBeTruthy();
      const second = await configMaps().list({ labelSelector: 'set=paging', limit: 3, continue: first.metadata.continue });
      expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
      const all = await configMaps().listAll({ labelSelector: 'set=paging', limit: 2 });
      expect(all.items.map((c) => c.metadata?.name).sort()).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `page-${i}`));
      expect(all.metadata.continue).toBeUndefined();
      const removed = await configMaps().deleteCollection({ labelSelector: 'set=paging' });
      expect(removed).toBeDefined();
      expect((await configMaps().list({ labelSelector: 'set=paging' })).items).toHaveLength(0);
    });

    it('watches from a list resourceVersion: ADDED, MODIFIED, DELETED in order, then stops', async () => {
      const list = await configMaps().list({ labelSelector: 'set=watch' });
      const watch = await configMaps().watch({ resourceVersion: list.metadata.resourceVersion, labelSelector: 'set=watch', allowWatchBookmarks: true });
      const events: Array<WatchEvent<ConfigMap>> = [];
      const reading = (async () => {
        for await (const event of watch) {
          if (event.type === 'BOOKMARK') continue;
          events.push(event);
          if (events.length === 3) watch.stop();
        }
      })();
      await configMaps().create(configMap('watched', { v: '1' }, { set: 'watch' }));
      await configMaps().patch('watched', { data: { v: '2' } });
      await configMaps().delete('watched');
      await reading;
      expect(events.map((e) => [e.type, e.object.metadata?.name, e.object.data?.v])).toEqual([
        ['ADDED', 'watched', '1'],
        ['MODIFIED', 'watched', '2'],
        ['DELETED', 'watched', '2'],
      ]);
      expect(watch.resourceVersion).toBe(events[2].object.metadata?.resourceVersion);
    });

    it('reaches the same objects through forKind and the dynamic client', async () => {
      await configMaps().create(configMap('dynamic', { k: 'v' }));
      const byKind = await client.forKind<ConfigMap>('v1', 'ConfigMap').get('dynamic', { namespace: NS });
      const dynamic = await client.dynamic({ group: '', version: 'v1', resource: 'configmaps', namespaced: true }).get('dynamic', { namespace: NS });
      expect(byKind.data).toEqual({ k: 'v' });
      expect(dynamic.data).toEqual({ k: 'v' });
    });
  });

  describe('Deployments', () => {
    it('create, status update, scale subresource and delete', async () => {
      const deployments = client.deployments.inNamespace(NS);
      const created = await deployments.create(deployment('web', 2));
      expect(created).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment', spec: { replicas: 2 } });

      const withStatus = await deployments.updateStatus({ ...created, status: { replicas: 2, readyReplicas: 1 } });
      expect(withStatus.status).toMatchObject({ replicas: 2, readyReplicas: 1 });

      const scale = await deployments.getScale('web');
      expect(scale).toMatchObject({ kind: 'Scale', spec: { replicas: 2 } });
      const scaled = await deployments.updateScale('web', { ...scale, spec: { replicas: 5 } });
      expect(scaled.spec?.replicas).toBe(5);
      expect((await deployments.get('web')).spec?.replicas).toBe(5);

      const invalid = await deployments
        .create({ metadata: { name: 'no-selector' }, spec: { template: { spec: { containers: [] } } } } as unknown as Deployment)
        .catch((e: unknown) => e);
      expect(isInvalid(invalid)).toBe(true);

      await deployments.delete('web', { propagationPolicy: 'Background' });
      expect(isNotFound(await deployments.get('web').catch((e: unknown) => e))).toBe(true);
    });
  });
});

describe('client against an overloaded server', () => {
  it('waits the Retry-After of a 429, then succeeds, verifying TLS against the given CA', async () => {
    const pems = await generate([{ name: 'commonName', value: 'overloaded' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
    });
    const arrivals: number[] = [];
    const server = createHttpsServer({ key: pems.private, cert: pems.cert }, (_req, res) => {
      arrivals.push(Date.now());
      if (arrivals.length === 1) {
        res.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '1' });
        res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'TooManyRequests', code: 429 }));
        return;
      }
      res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'd' } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = new Client({ server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, ca: pems.cert });
    try {
      const got = await client.configMaps.get('x', { namespace: 'd' });
      expect(got.metadata?.name).toBe('x');
      expect(arrivals).toHaveLength(2);
      expect(arrivals[1] - arrivals[0]).toBeGreaterThanOrEqual(950);
    } finally {
      client.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
