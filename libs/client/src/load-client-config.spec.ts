import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { stringify } from 'yaml';
import { clientConfigFromOptions, ClientConfigError, loadClientConfig } from './load-client-config';

const CA = '-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n';
const CERT = '-----BEGIN CERTIFICATE-----\nCLIENT\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN PRIVATE KEY-----\nKEY\n-----END PRIVATE KEY-----\n';
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('loadClientConfig', () => {
  let dir: string;
  const write = async (name: string, doc: unknown) => {
    const path = join(dir, name);
    await writeFile(path, typeof doc === 'string' ? doc : stringify(doc));
    return path;
  };
  const file = (overrides: Record<string, unknown> = {}) => ({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name: 'main', cluster: { server: 'https://10.0.0.1:6443', 'certificate-authority-data': b64(CA) } },
      { name: 'other', cluster: { server: 'https://other:443', 'certificate-authority': 'pki/ca.crt', 'tls-server-name': 'api.internal' } },
    ],
    users: [
      { name: 'admin', user: { 'client-certificate-data': b64(CERT), 'client-key-data': b64(KEY) } },
      { name: 'robot', user: { tokenFile: 'secrets/token', 'client-certificate': 'pki/client.crt', 'client-key': 'pki/client.key' } },
      { name: 'bearer', user: { token: 'abc.def' } },
    ],
    contexts: [
      { name: 'main', context: { cluster: 'main', user: 'admin', namespace: 'team' } },
      { name: 'robot', context: { cluster: 'other', user: 'robot' } },
      { name: 'bearer', context: { cluster: 'main', user: 'bearer' } },
    ],
    'current-context': 'main',
    ...overrides,
  });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-client-config-'));
    await mkdir(join(dir, 'pki'));
    await mkdir(join(dir, 'secrets'));
    await writeFile(join(dir, 'pki', 'ca.crt'), CA);
    await writeFile(join(dir, 'pki', 'client.crt'), CERT);
    await writeFile(join(dir, 'pki', 'client.key'), KEY);
    await writeFile(join(dir, 'secrets', 'token'), 'file-token\n');
  });

  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('reads the current context: server, inline CA, inline client certificate and the namespace', async () => {
    const config = await loadClientConfig({ svcconfig: await write('config', file()) });
    expect(config).toEqual({ server: 'https://10.0.0.1:6443', ca: CA, clientCert: CERT, clientKey: KEY, namespace: 'team' });
  });

  it('reads files relative to the connection file, and a named context', async () => {
    const path = await write('config', file());
    const config = await loadClientConfig({ svcconfig: path, context: 'robot' });
    expect(config).toEqual({
      server: 'https://other:443',
      ca: CA,
      tlsServerName: 'api.internal',
      clientCert: CERT,
      clientKey: KEY,
      tokenFile: join(dir, 'secrets', 'token'),
    });
  });

  it('reads a bearer token and verifies TLS unless the file turns verification off', async () => {
    const path = await write('config', file({ 'current-context': 'bearer' }));
    expect(await loadClientConfig({ svcconfig: path })).toEqual({ server: 'https://10.0.0.1:6443', ca: CA, token: 'abc.def' });
    const doc = file({ 'current-context': 'bearer' });
    doc.clusters[0].cluster = { server: 'https://10.0.0.1:6443', 'insecure-skip-tls-verify': true } as never;
    expect(await loadClientConfig({ svcconfig: await write('insecure', doc) })).toMatchObject({ insecureSkipTlsVerify: true });
  });

  it('lets --master replace the server of the file, or stand alone', async () => {
    const path = await write('config', file());
    expect(await loadClientConfig({ svcconfig: path, master: 'https://127.0.0.1:9443' })).toMatchObject({ server: 'https://127.0.0.1:9443', ca: CA });
    expect(await loadClientConfig({ master: 'http://127.0.0.1:8080', discover: false })).toEqual({ server: 'http://127.0.0.1:8080' });
    // Several API servers of one store, tried in turn.
    expect(await loadClientConfig({ svcconfig: path, master: 'https://10.0.0.1:6443, https://10.0.0.2:6443' })).toMatchObject({
      server: 'https://10.0.0.1:6443',
      servers: ['https://10.0.0.2:6443'],
      ca: CA,
    });
  });

  it('maps the process flags, rate and content type included', async () => {
    const path = await write('config', file());
    const config = await clientConfigFromOptions({ svcconfig: path, svcApiQps: 20, svcApiBurst: 30, svcApiContentType: 'application/vnd.svc.protobuf' });
    expect(config).toMatchObject({ server: 'https://10.0.0.1:6443', qps: 20, burst: 30, contentType: 'application/vnd.svc.protobuf' });
  });

  it('reads the file the API server writes', async () => {
    const path = await write('svcconfig', {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'svc', cluster: { server: 'https://127.0.0.1:40001', 'certificate-authority-data': b64(CA) } }],
      users: [{ name: 'svc', user: { username: 'anonymous' } }],
      contexts: [{ name: 'svc', context: { cluster: 'svc', user: 'svc' } }],
      'current-context': 'svc',
      preferences: {},
    });
    expect(await loadClientConfig({ svcconfig: path })).toEqual({ server: 'https://127.0.0.1:40001', ca: CA, username: 'anonymous' });
  });

  describe('without a connection file given', () => {
    let home: string;
    beforeEach(async () => {
      home = join(dir, 'home');
      await mkdir(join(home, '.kube'), { recursive: true });
    });
    const single = (server: string, extra: Record<string, unknown> = {}) => ({
      clusters: [{ name: 'c', cluster: { server, 'certificate-authority': 'ca.crt' } }],
      users: [{ name: 'u', user: { token: `token-of-${server}` } }],
      contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'ctx',
      ...extra,
    });

    it('reads the files KUBECONFIG lists, merged: the first to name an entry or a current context wins', async () => {
      await mkdir(join(dir, 'a'));
      await mkdir(join(dir, 'b'));
      await writeFile(join(dir, 'a', 'ca.crt'), CA);
      await writeFile(join(dir, 'b', 'ca.crt'), 'CA OF B');
      const a = await write('a/config', { ...single('https://a:6443'), 'current-context': undefined });
      const b = await write('b/config', {
        ...single('https://b:6443'),
        clusters: [
          { name: 'c', cluster: { server: 'https://b:6443' } },
          { name: 'only-b', cluster: { server: 'https://only-b:6443', 'certificate-authority': 'ca.crt' } },
        ],
        contexts: [
          { name: 'ctx', context: { cluster: 'c', user: 'u' } },
          { name: 'b-ctx', context: { cluster: 'only-b', user: 'u', namespace: 'from-b' } },
        ],
        'current-context': 'b-ctx',
      });
      const env = { KUBECONFIG: ['', a, join(dir, 'missing'), b].join(delimiter) };
      // current-context from b (a sets none), cluster only-b from b with b's CA, user u from a.
      expect(await loadClientConfig({ env, homeDir: home })).toEqual({
        server: 'https://only-b:6443',
        ca: 'CA OF B',
        token: 'token-of-https://a:6443',
        namespace: 'from-b',
      });
      // Cluster c is a's whole entry (with a's CA file, resolved against a's directory), not b's.
      expect(await loadClientConfig({ env, homeDir: home, context: 'ctx' })).toEqual({ server: 'https://a:6443', ca: CA, token: 'token-of-https://a:6443' });
      // Home is not read when KUBECONFIG is set.
      await write('home/.kube/config', single('https://home:6443'));
      expect((await loadClientConfig({ env: { KUBECONFIG: a }, homeDir: home, context: 'ctx' })).server).toBe('https://a:6443');
    });

    it('falls back to ~/.kube/config, and lets --master replace its server', async () => {
      await writeFile(join(home, '.kube', 'ca.crt'), CA);
      await write('home/.kube/config', single('https://home:6443'));
      expect(await loadClientConfig({ env: {}, homeDir: home })).toEqual({ server: 'https://home:6443', ca: CA, token: 'token-of-https://home:6443' });
      expect(await loadClientConfig({ env: {}, homeDir: home, master: 'https://other:443' })).toMatchObject({ server: 'https://other:443', ca: CA });
      // A file given wins over both.
      const given = await write('given', file());
      expect((await loadClientConfig({ svcconfig: given, env: { KUBECONFIG: given }, homeDir: home })).server).toBe('https://10.0.0.1:6443');
    });

    it("reads a pod's service account before the home file, and not when KUBECONFIG is set", async () => {
      const sa = join(dir, 'serviceaccount');
      await mkdir(sa);
      await writeFile(join(sa, 'token'), 'sa-token');
      await writeFile(join(sa, 'ca.crt'), CA);
      await writeFile(join(sa, 'namespace'), 'operators\n');
      await writeFile(join(home, '.kube', 'ca.crt'), CA);
      await write('home/.kube/config', single('https://home:6443'));
      const pod = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };
      expect(await loadClientConfig({ env: pod, homeDir: home, serviceAccountDir: sa })).toEqual({
        server: 'https://10.96.0.1:443',
        ca: CA,
        tokenFile: join(sa, 'token'),
        namespace: 'operators',
      });
      expect(
        (await loadClientConfig({ env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' }, homeDir: home, serviceAccountDir: sa })).server,
      ).toBe('https://[fd00::1]:443');
      // Without the address, or without a token, it is not a pod: the home file is read.
      expect((await loadClientConfig({ env: {}, homeDir: home, serviceAccountDir: sa })).server).toBe('https://home:6443');
      expect((await loadClientConfig({ env: pod, homeDir: home, serviceAccountDir: join(dir, 'none') })).server).toBe('https://home:6443');
      const listed = await write('home/.kube/listed', single('https://listed:6443'));
      expect((await loadClientConfig({ env: { ...pod, KUBECONFIG: listed }, homeDir: home, serviceAccountDir: sa })).server).toBe('https://listed:6443');
    });

    it('is not done for a process configured by its flags, which reports the missing flag', async () => {
      await write('home/.kube/config', single('https://home:6443'));
      await expect(loadClientConfig({ env: {}, homeDir: home, discover: false })).rejects.toThrow('no API server: give --svcconfig or --master');
      await expect(clientConfigFromOptions({})).rejects.toThrow('no API server: give --svcconfig or --master');
    });

    it('names the places looked at when none holds a file, and a broken file found', async () => {
      await expect(loadClientConfig({ env: { KUBECONFIG: join(dir, 'none') }, homeDir: home })).rejects.toThrow(
        'no API server: give --svcconfig or --master, or a connection file in KUBECONFIG or ~/.kube/config, or run in a pod with a service account',
      );
      await expect(loadClientConfig({ env: {}, homeDir: home })).rejects.toBeInstanceOf(ClientConfigError);
      const broken = await write('home/.kube/config', '- not\n- a map\n');
      await expect(loadClientConfig({ env: {}, homeDir: home })).rejects.toThrow(`${broken}: not a connection file`);
    });
  });

  it.each([
    ['no source at all', undefined, /give --svcconfig or --master/],
    ['a missing file', 'missing', /cannot read connection file/],
    ['a missing context', file({ 'current-context': 'nope' }), /no context named "nope"/],
    ['no current context', file({ 'current-context': undefined }), /no context given/],
    [
      'a CA given twice',
      file({ clusters: [{ name: 'main', cluster: { server: 'https://x', 'certificate-authority': 'pki/ca.crt', 'certificate-authority-data': b64(CA) } }] }),
      /both specified/,
    ],
    ['a certificate without its key', file({ users: [{ name: 'admin', user: { 'client-certificate': 'pki/client.crt' } }] }), /must be given together/],
    [
      'a missing CA file',
      file({ clusters: [{ name: 'main', cluster: { server: 'https://x', 'certificate-authority': 'pki/none.crt' } }] }),
      /cannot read certificate-authority/,
    ],
    ['an exec plugin', file({ users: [{ name: 'admin', user: { exec: { command: 'x' } } }] }), /exec credentials are not supported/],
    ['a cluster without a server', file({ clusters: [{ name: 'main', cluster: {} }] }), /has no server address/],
    ['YAML that is not a map', '- a\n- b\n', /not a connection file/],
  ])('refuses %s with a message naming the problem', async (_what, doc, message) => {
    const svcconfig = doc === undefined ? undefined : doc === 'missing' ? join(dir, 'missing') : await write('config', doc);
    const result = loadClientConfig({ svcconfig, env: {}, homeDir: join(dir, 'no-home') });
    await expect(result).rejects.toBeInstanceOf(ClientConfigError);
    await expect(result).rejects.toThrow(message);
  });
});
