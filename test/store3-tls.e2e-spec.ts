// The API server on an etcd member that serves TLS only and asks every client for a certificate
// (--client-cert-auth): the server reaches it with --store-cafile, --store-certfile and
// --store-keyfile, keeps objects where Kubernetes keeps them (etcdctl finds a ConfigMap under
// /registry/configmaps/<namespace>/<name>), and reports the store's size and object counts.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureClientCa, ensureServingCertificates, issueClientCertificate } from '@svc/apiserver';
import { etcdUnavailable, startEtcdCluster, type EtcdCluster } from '@svc/storage/testing';
import { eventually } from './support/api-fixtures';
import { startApiServerProcess, type ApiServerProcess } from './support/apiserver-process';
import { kubectl } from './support/kubectl-run';

const unavailable = etcdUnavailable();
if (unavailable !== undefined) console.log(`store3 over TLS: skipped, ${unavailable}`);

jest.setTimeout(60_000);

(unavailable ? describe.skip : describe)('store3 on an etcd member that requires client certificates', () => {
  let dir: string;
  let etcd: EtcdCluster;
  let server: ApiServerProcess;
  const files = { ca: '', clientCa: '', cert: '', key: '', serverCert: '', serverKey: '' };

  const etcdctl = (withClientCertificate: boolean, ...args: string[]) =>
    spawnSync(
      'etcdctl',
      [
        `--endpoints=${etcd.endpoints.join(',')}`,
        `--cacert=${files.ca}`,
        ...(withClientCertificate ? [`--cert=${files.cert}`, `--key=${files.key}`] : []),
        '--command-timeout=5s',
        ...args,
      ],
      { encoding: 'utf8', env: { ...process.env, ETCDCTL_API: '3' } },
    );

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-etcd-tls-e2e-'));
    const serving = await ensureServingCertificates({ certDir: join(dir, 'etcd-serving'), bindAddress: '127.0.0.1' });
    const clientCa = await ensureClientCa(join(dir, 'etcd-clients'));
    const client = await issueClientCertificate(clientCa, 'svc-apiserver');
    Object.assign(files, {
      ca: join(dir, 'etcd-ca.crt'),
      clientCa: clientCa.certFile,
      cert: join(dir, 'apiserver-etcd-client.crt'),
      key: join(dir, 'apiserver-etcd-client.key'),
      serverCert: serving.certFile,
      serverKey: serving.keyFile,
    });
    await writeFile(files.ca, serving.caPem ?? '');
    await writeFile(files.cert, client.certPem);
    await writeFile(files.key, client.keyPem, { mode: 0o600 });
    etcd = await startEtcdCluster({
      members: 1,
      tls: {
        caFile: files.ca,
        serverCertFile: files.serverCert,
        serverKeyFile: files.serverKey,
        clientCertAuth: true,
        clientCaFile: files.clientCa,
        clientCertFile: files.cert,
        clientKeyFile: files.key,
      },
    });
    server = await startApiServerProcess({
      storeServers: etcd.endpoints,
      args: [
        `--store-cafile=${files.ca}`,
        `--store-certfile=${files.cert}`,
        `--store-keyfile=${files.key}`,
        '--store-db-metric-poll-interval=1s',
        '--store-count-metric-poll-period=1s',
      ],
    });
  });

  afterAll(async () => {
    await server?.stop();
    await etcd?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('the member refuses a client without a certificate, and the server (with one) serves', () => {
    expect(etcd.endpoints[0]).toMatch(/^https:\/\//);
    const refused = etcdctl(false, 'get', '--prefix', '--keys-only', '/registry/namespaces/');
    expect(refused.status).not.toBe(0);
    const listed = etcdctl(true, 'get', '--prefix', '--keys-only', '/registry/namespaces/');
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain('/registry/namespaces/default');
  });

  test('etcdctl finds a ConfigMap where Kubernetes keeps it, and the metrics give the store size and object counts', async () => {
    await kubectl(['create', 'configmap', 'where', '-n', 'default', '--from-literal=k=v'], server.kubectlEnv);
    const got = etcdctl(true, 'get', '/registry/configmaps/default/where', '--print-value-only');
    expect(got.status).toBe(0);
    expect(got.stdout).toContain('"name":"where"');

    await eventually(async () => {
      const metrics = (await kubectl(['get', '--raw', '/metrics'], server.kubectlEnv)).stdout;
      const size = /^apiserver_storage_size_bytes\{storage_cluster_id="([0-9a-f]+)"\} (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(metrics);
      expect(size).not.toBeNull();
      expect(Number(size?.[2])).toBeGreaterThan(0);
      const configMaps = /^apiserver_storage_objects\{resource="configmaps"\} (\d+)$/m.exec(metrics);
      expect(Number(configMaps?.[1])).toBeGreaterThanOrEqual(1);
    }, 15_000);
  });
});
