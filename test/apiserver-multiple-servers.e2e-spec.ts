// Several API servers on one store: two svc-apiserver processes on a three-member etcd cluster (store3),
// on 127.0.0.2 and 127.0.0.3 with one port (as the `kubernetes` Endpoints list one port for all), each
// under a host name of its own when run as root (a UTS namespace), so that each holds its own identity
// Lease. A write through one is seen through the other; CRDs, RBAC and admission policies made through
// one are in force on both; the `kubernetes` Endpoints list both; and when one is killed (kill -9)
// during writes and watches, the other's watchers see every acknowledged change once, in order, an
// informer that fails over keeps a cache equal to the store, and the dead server leaves the Endpoints.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigMap } from '@svc/api';
import { Client, loadClientConfig, type ClientConfig, type ResourceClient } from '@svc/client';
import { listerWatcherFor, SharedInformer, silentInformerLogger } from '@svc/informers';
import { isForbidden, isStatusError } from '@svc/machinery';
import { apiServerIdentity, writeIdentityConnectionFile } from '@svc/apiserver';
import { etcdUnavailable, freePort, startEtcdCluster, type EtcdCluster } from '@svc/storage/testing';
import { eventually } from './support/api-fixtures';
import { startApiServerProcess, type ApiServerProcess } from './support/apiserver-process';

const unavailable = etcdUnavailable();
if (unavailable !== undefined) console.log(`several API servers on one store: skipped, ${unavailable}`);
const HOSTS = ['127.0.0.2', '127.0.0.3'] as const;
const NAMES = ['svc-e2e-apiserver-a', 'svc-e2e-apiserver-b'] as const;
const NS = 'multi';
/** Host names of their own need a UTS namespace: root and unshare. */
const ownHostNames = process.getuid?.() === 0 && spawnSync('unshare', ['--uts', 'true']).status === 0;

jest.setTimeout(120_000);

/** A port free on every one of the hosts. */
async function commonFreePort(hosts: readonly string[]): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await freePort(hosts[0]);
    const free = await Promise.all(hosts.slice(1).map((h) => freePortIs(h, port)));
    if (free.every(Boolean)) return port;
  }
  throw new Error(`no port free on all of ${hosts.join(', ')}`);
}

async function freePortIs(host: string, port: number): Promise<boolean> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

(unavailable ? describe.skip : describe)('several API servers on one etcd cluster', () => {
  let etcd: EtcdCluster;
  let certDir: string;
  let port: number;
  const servers: ApiServerProcess[] = [];
  let configs: ClientConfig[];
  let clients: Client[];

  const configMaps = (i: number): ResourceClient<ConfigMap> => clients[i].configMaps.inNamespace(NS);

  beforeAll(async () => {
    etcd = await startEtcdCluster({ members: 3 });
    certDir = await mkdtemp(join(tmpdir(), 'svc-etcd-e2e-certs-'));
    port = await commonFreePort(HOSTS);
    // One after the other: the second finds the first's CAs in the shared certificate directory.
    for (const [i, host] of HOSTS.entries()) {
      servers.push(
        await startApiServerProcess({
          storeServers: etcd.endpoints,
          bindAddress: host,
          port,
          certDir,
          wrap: ownHostNames ? ['unshare', '--uts', 'sh', '-c', `hostname ${NAMES[i]} && exec "$@"`, 'sh'] : undefined,
          args: ['--authorization-mode=RBAC', '--store-compaction-interval=0'],
          readyTimeoutMs: 60_000,
        }),
      );
    }
    const base = await loadClientConfig({ svcconfig: servers[0].kubeconfig });
    configs = HOSTS.map((host) => ({ ...base, server: `https://${host}:${port}` }));
    clients = configs.map((config) => new Client({ ...config, qps: -1 }));
    await clients[0].namespaces.create({ metadata: { name: NS } });
  });

  afterAll(async () => {
    clients?.forEach((c) => c.close());
    await Promise.all(servers.map((s) => s.stop()));
    await etcd?.stop();
    if (certDir) await rm(certDir, { recursive: true, force: true });
  });

  test('a write through one server is seen by a watch and a consistent read through the other', async () => {
    const listed = await configMaps(1).list();
    const watch = await configMaps(1).watch({ resourceVersion: listed.metadata.resourceVersion });
    const created = await configMaps(0).create({ metadata: { name: 'seen' }, data: { v: '1' } });
    // A read right after the write, through the other server, sees it (reads are linearizable).
    expect((await configMaps(1).get('seen')).metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    const updated = await configMaps(1).update({ ...(await configMaps(1).get('seen')), data: { v: '2' } });
    expect((await configMaps(0).get('seen')).data).toEqual({ v: '2' });
    const seen: string[] = [];
    for await (const event of watch) {
      if (event.type === 'BOOKMARK') continue;
      seen.push(`${event.type} ${event.object.metadata?.name} ${event.object.metadata?.resourceVersion}`);
      if (seen.length === 2) break;
    }
    watch.stop();
    expect(seen).toEqual([`ADDED seen ${created.metadata?.resourceVersion}`, `MODIFIED seen ${updated.metadata?.resourceVersion}`]);
  });

  test('a CRD, RBAC rules and an admission policy made through one server are in force on the other within seconds', async () => {
    const started = Date.now();
    await clients[0].rest.request({
      method: 'POST',
      path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      body: {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'widgets.multi.e2e.test' },
        spec: {
          group: 'multi.e2e.test',
          scope: 'Namespaced',
          names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
          versions: [
            { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
          ],
        },
      },
    });
    const widgets = clients[1].dynamic({ group: 'multi.e2e.test', version: 'v1', resource: 'widgets', namespaced: true, kind: 'Widget' }).inNamespace(NS);
    await eventually(() => widgets.create({ apiVersion: 'multi.e2e.test/v1', kind: 'Widget', metadata: { name: 'w' } }), 10_000, 100);

    // A user with no rights is refused by both; a Role and binding made through one let it in through the other.
    const aliceFile = join(servers[0].dir, 'alice.kubeconfig');
    await writeIdentityConnectionFile({ connectionFile: servers[0].kubeconfig, certDir, path: aliceFile, user: 'alice' });
    const alice = new Client({ ...(await loadClientConfig({ svcconfig: aliceFile })), server: configs[1].server, qps: -1 });
    expect(
      isForbidden(
        await alice.configMaps
          .inNamespace(NS)
          .list()
          .catch((e: unknown) => e),
      ),
    ).toBe(true);
    const rbac = (resource: string) => `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/${resource}`;
    await clients[0].rest.request({
      method: 'POST',
      path: rbac('roles'),
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'read-cm' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }],
      },
    });
    await clients[0].rest.request({
      method: 'POST',
      path: rbac('rolebindings'),
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'alice-reads' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'read-cm' },
        subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }],
      },
    });
    await eventually(() => alice.configMaps.inNamespace(NS).list(), 10_000, 100);
    alice.close();

    // An admission policy made through one server denies through the other.
    const vap = '/apis/admissionregistration.k8s.io/v1';
    await clients[0].rest.request({
      method: 'POST',
      path: `${vap}/validatingadmissionpolicies`,
      body: {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: 'no-forbidden' },
        spec: {
          matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] },
          validations: [{ expression: "!object.metadata.name.startsWith('forbidden-')", message: 'forbidden name' }],
        },
      },
    });
    await clients[0].rest.request({
      method: 'POST',
      path: `${vap}/validatingadmissionpolicybindings`,
      body: {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicyBinding',
        metadata: { name: 'no-forbidden' },
        spec: { policyName: 'no-forbidden', validationActions: ['Deny'] },
      },
    });
    let attempt = 0;
    await eventually(
      async () => {
        const name = `forbidden-${attempt++}`;
        const error = await configMaps(1)
          .create({ metadata: { name } })
          .then(() => undefined)
          .catch((e: unknown) => e);
        expect(isStatusError(error) && error.message).toContain('forbidden name');
      },
      10_000,
      100,
    );
    // Within seconds of the last write through the first server, all three are in force on the second.
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  test('each server holds its identity Lease, and the kubernetes Endpoints list both', async () => {
    const leases = await clients[1].rest.request<{ items: Array<{ metadata: { name: string; labels: Record<string, string> } }> }>({
      method: 'GET',
      path: '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases',
      query: { labelSelector: 'apiserver.kubernetes.io/identity=kube-apiserver' },
    });
    const names = leases.items.map((l) => l.metadata.name).sort();
    if (ownHostNames) {
      expect(names).toEqual(NAMES.map((n) => apiServerIdentity(n)).sort());
      expect(leases.items.map((l) => l.metadata.labels['kubernetes.io/hostname']).sort()).toEqual([...NAMES]);
    } else {
      // One host name for both: one Lease, as Kubernetes would have it.
      expect(names.length).toBe(1);
    }
    type Endpoints = { subsets: Array<{ addresses: Array<{ ip: string }>; ports: Array<{ port: number }> }> };
    await eventually(async () => {
      const current = await clients[0].rest.request<Endpoints>({ method: 'GET', path: '/api/v1/namespaces/default/endpoints/kubernetes' });
      expect(current.subsets[0].addresses.map((a) => a.ip)).toEqual([...HOSTS]);
      expect(current.subsets[0].ports[0].port).toBe(port);
    }, 25_000);
  });

  test('kill -9 of one server during writes and watches: watchers of the other see every acknowledged change once, in order', async () => {
    // Writers reach both servers (the first named first), watchers and an informer the second only.
    const both: ClientConfig = { ...configs[0], servers: [configs[1].server], qps: -1 };
    const writer = new Client(both);
    const listed = await configMaps(1).list();
    const from = listed.metadata.resourceVersion;
    const watches = await Promise.all([
      configMaps(1).watch({ resourceVersion: from }),
      configMaps(1).watch({ resourceVersion: from, allowWatchBookmarks: true }),
    ]);
    const seen: Array<Map<string, string>> = watches.map(() => new Map());
    const order: number[][] = watches.map(() => []);
    const reading = watches.map(async (watch, w) => {
      try {
        for await (const event of watch) {
          if (event.type === 'BOOKMARK') continue;
          const rv = event.object.metadata?.resourceVersion ?? '';
          if (seen[w].has(rv)) throw new Error(`watch ${w} saw revision ${rv} twice`);
          seen[w].set(rv, `${event.type} ${event.object.metadata?.name}`);
          order[w].push(Number(rv));
        }
      } catch (error) {
        if (!watch.stopped) throw error;
      }
    });
    const informer = new SharedInformer<ConfigMap>(listerWatcherFor(new Client(both).configMaps), {
      name: 'configmaps',
      logger: silentInformerLogger,
      backoff: { initialMs: 100, maxMs: 1_000 },
      reconnectGraceMs: 500,
    });
    informer.start();
    await expect(informer.whenSynced(20_000)).resolves.toBe(true);

    const acknowledged = new Map<string, string>();
    let failed = 0;
    const deadline = Date.now() + 4_000;
    const writers = Array.from({ length: 16 }, async (_, w) => {
      const mine = writer.configMaps.inNamespace(NS);
      // Each writer cycles its own three objects: create, updates, delete, create again.
      const exists = new Map<string, ConfigMap | undefined>();
      for (let i = 0; Date.now() < deadline; i++) {
        const name = `w${w}-${i % 3}`;
        const current = exists.get(name);
        try {
          if (current === undefined) {
            const created = await mine.create({ metadata: { name }, data: { i: String(i) } });
            acknowledged.set(created.metadata?.resourceVersion ?? '', `ADDED ${name}`);
            exists.set(name, created);
          } else if (i % 7 === 6) {
            await mine.delete(name, { preconditions: { resourceVersion: current.metadata?.resourceVersion } });
            exists.delete(name);
          } else {
            const updated = await mine.update({ ...current, data: { i: String(i) } });
            acknowledged.set(updated.metadata?.resourceVersion ?? '', `MODIFIED ${name}`);
            exists.set(name, updated);
          }
        } catch {
          // In flight when the server died: it may or may not have happened; read what is there.
          failed++;
          exists.set(name, await mine.get(name).catch(() => undefined));
        }
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await servers[0].kill('SIGKILL');
    await Promise.all(writers);
    writer.close();
    expect(acknowledged.size).toBeGreaterThan(50);

    // Every acknowledged write reaches both watchers, once and in order.
    const last = Math.max(...[...acknowledged.keys()].map(Number));
    await eventually(async () => {
      for (const s of seen) expect(Math.max(0, ...[...s.keys()].map(Number))).toBeGreaterThanOrEqual(last);
    }, 20_000);
    for (const [w, s] of seen.entries()) {
      for (const [rv, what] of acknowledged) expect(s.get(rv)).toBe(what);
      expect(order[w]).toEqual([...order[w]].sort((x, y) => x - y));
    }
    watches.forEach((watch) => watch.stop());
    await Promise.all(reading);

    // The informer, moved on to the live server, holds what the store holds.
    await eventually(
      async () => {
        const all = await clients[1].configMaps.listAll();
        const versions = (items: readonly ConfigMap[]) =>
          Object.fromEntries(items.map((i) => [`${i.metadata?.namespace}/${i.metadata?.name}`, i.metadata?.resourceVersion]));
        expect(versions(informer.lister().list())).toEqual(versions(all.items));
      },
      20_000,
      100,
    );
    await informer.stop();

    // The dead server's master lease expires (15 s) and the next reconcile (10 s) takes it out.
    await eventually(
      async () => {
        const current = await clients[1].rest.request<{ subsets: Array<{ addresses: Array<{ ip: string }> }> }>({
          method: 'GET',
          path: '/api/v1/namespaces/default/endpoints/kubernetes',
        });
        expect(current.subsets[0].addresses.map((a) => a.ip)).toEqual([HOSTS[1]]);
      },
      40_000,
      500,
    );
    console.log(`kill -9 of one API server: ${acknowledged.size} creates and updates acknowledged, ${failed} writes in flight failed`);
  });
});
