import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureClientCa, issueClientCertificate, type IssuedCertificate } from '@svc/apiserver';
import { httpsCall } from '@svc/apiserver/testing';
import { eventually } from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import { kubectl, runKubectl } from './support/kubectl-run';

// The API server publishes how it authenticates clients in svc-system/extension-apiserver-authentication,
// keeps it so, and lets the controller manager and scheduler read it through a bootstrap RoleBinding.

const NAME = 'extension-apiserver-authentication';
const PATH = `/api/v1/namespaces/svc-system/configmaps/${NAME}`;

interface ConfigMap {
  metadata: { uid: string; resourceVersion: string };
  data?: Record<string, string>;
}

let server: ApiServerProcess;
let dir: string;
let userCaPem: string;
let proxyCaPem: string;
let controllerManager: IssuedCertificate;

function fingerprints(pem: string | undefined): string[] {
  return (pem?.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((b) => new X509Certificate(b).fingerprint256).sort();
}

async function admin(...args: string[]): Promise<string> {
  return (await kubectl(args, server.kubectlEnv)).stdout;
}

async function published(): Promise<ConfigMap> {
  return JSON.parse(await admin('get', 'configmap', NAME, '-n', 'svc-system', '-o', 'json')) as ConfigMap;
}

async function canI(...args: string[]): Promise<string> {
  return (await runKubectl(['auth', 'can-i', ...args], server.kubectlEnv)).stdout.trim();
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-authinfo-e2e-'));
  const userCa = await ensureClientCa(join(dir, 'user-ca'));
  const proxyCa = await ensureClientCa(join(dir, 'proxy-ca'));
  userCaPem = userCa.certPem;
  proxyCaPem = proxyCa.certPem;
  controllerManager = await issueClientCertificate(userCa, 'system:kube-controller-manager');
  server = await startApiServerProcess({
    args: [
      '--authorization-mode=RBAC',
      `--client-ca-file=${userCa.certFile}`,
      `--requestheader-client-ca-file=${proxyCa.certFile}`,
      '--requestheader-allowed-names=front-proxy,aggregator',
      '--requestheader-username-headers=X-Remote-User',
      '--requestheader-group-headers=X-Remote-Group',
      '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    ],
  });
}, 90_000);

afterAll(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the extension-apiserver-authentication ConfigMap', () => {
  it('is there once the server is ready, with the client CAs and the front-proxy settings', async () => {
    const configMap = await published();
    const data = configMap.data ?? {};
    expect(Object.keys(data).sort()).toEqual([
      'client-ca-file',
      'requestheader-allowed-names',
      'requestheader-client-ca-file',
      'requestheader-extra-headers-prefix',
      'requestheader-group-headers',
      'requestheader-username-headers',
    ]);
    // --client-ca-file's CA and the server's own, which issued the administrator's connection file.
    const ownCa = await readFile(join(server.dir, 'certs', 'client-ca.crt'), 'utf8');
    expect(fingerprints(data['client-ca-file'])).toEqual(fingerprints(`${userCaPem}\n${ownCa}`));
    expect(fingerprints(data['requestheader-client-ca-file'])).toEqual(fingerprints(proxyCaPem));
    expect(JSON.parse(data['requestheader-allowed-names'])).toEqual(['front-proxy', 'aggregator']);
    expect(JSON.parse(data['requestheader-username-headers'])).toEqual(['X-Remote-User']);
    expect(JSON.parse(data['requestheader-group-headers'])).toEqual(['X-Remote-Group']);
    expect(JSON.parse(data['requestheader-extra-headers-prefix'])).toEqual(['X-Remote-Extra-']);
    const readyz = await httpsCall(server.url, server.ca, 'GET', '/readyz?verbose', {});
    expect(readyz.body.raw).toContain('[+]poststarthook/start-cluster-authentication-info-controller ok');
  });

  it('comes back when it is deleted, and gets its content back when it is edited', async () => {
    const before = await published();
    await admin('delete', 'configmap', NAME, '-n', 'svc-system');
    const after = await eventually(async () => {
      const found = await published();
      expect(found.metadata.uid).not.toBe(before.metadata.uid);
      return found;
    }, 30_000);
    expect(after.data).toEqual(before.data);

    await admin('patch', 'configmap', NAME, '-n', 'svc-system', '--type=json', '-p', '[{"op":"remove","path":"/data/requestheader-client-ca-file"}]');
    await eventually(async () => expect((await published()).data).toEqual(before.data), 30_000);
  });

  it('is not written again while nothing changes', async () => {
    const first = await published();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await published()).metadata.resourceVersion).toBe(first.metadata.resourceVersion);
  });
});

describe('reading it', () => {
  it('is granted to the controller manager and the scheduler by the bootstrap RoleBinding', async () => {
    const binding = JSON.parse(
      await admin('get', 'rolebinding', `system::${'extension-apiserver-authentication-reader'}`, '-n', 'svc-system', '-o', 'json'),
    ) as {
      roleRef: { kind: string; name: string };
      subjects: Array<{ kind: string; name: string }>;
    };
    expect(binding.roleRef).toMatchObject({ kind: 'Role', name: 'extension-apiserver-authentication-reader' });
    expect(binding.subjects.map((s) => `${s.kind}:${s.name}`)).toEqual(['User:system:kube-controller-manager', 'User:system:kube-scheduler']);
    for (const user of ['system:kube-controller-manager', 'system:kube-scheduler']) {
      expect(await canI('get', `configmap/${NAME}`, '-n', 'svc-system', `--as=${user}`)).toBe('yes');
    }
    expect(await canI('get', `configmap/${NAME}`, '-n', 'svc-system', '--as=someone-else')).toBe('no');
  });

  it('through that Role alone, is the one ConfigMap a caller may read in svc-system', async () => {
    // Without its cluster-wide binding, the controller manager's user is bound by the RoleBinding only.
    await admin('delete', 'clusterrolebinding', 'system:kube-controller-manager');
    await admin('create', 'configmap', 'other', '-n', 'svc-system', '--from-literal=k=v');
    const identity = { cert: controllerManager.certPem, key: controllerManager.keyPem };
    const call = (path: string) => httpsCall(server.url, server.ca, 'GET', path, {}, undefined, identity);
    await eventually(async () => expect((await call('/api/v1/namespaces/svc-system/configmaps/other')).status).toBe(403), 30_000);
    const own = await call(PATH);
    expect(own.status).toBe(200);
    expect(Object.keys(own.body.data as object)).toContain('client-ca-file');
    expect((await call('/api/v1/namespaces/svc-system/configmaps')).status).toBe(403);
    expect((await call('/api/v1/namespaces/default/configmaps/other')).status).toBe(403);
    expect(await canI('get', 'configmap/other', '-n', 'svc-system', '--as=system:kube-controller-manager')).toBe('no');
    expect(await canI('get', `configmap/${NAME}`, '-n', 'svc-system', '--as=system:kube-controller-manager')).toBe('yes');
  });
});
