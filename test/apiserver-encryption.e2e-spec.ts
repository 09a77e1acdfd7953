// Encryption at rest through the real API server process: Secrets are unreadable in the store file,
// read back intact, and survive a key rotation; a configuration the server cannot honour stops it.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort, ROOT } from './support/apiserver-process';
import { kubectl } from './support/kubectl-run';
import { RestartableApiServer } from './support/restartable-apiserver';

const key = (bytes: number) => randomBytes(bytes).toString('base64');

function encryptionConfig(providers: string): string {
  return `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers:
${providers}
      - identity: {}
`;
}

/** Every byte SQLite holds for the store: the database and its write-ahead log. */
function storeBytes(dir: string): string {
  const file = join(dir, 'data', 'store.sqlite');
  return [file, `${file}-wal`]
    .filter((f) => existsSync(f))
    .map((f) => readFileSync(f).toString('latin1'))
    .join('');
}

describe('encryption at rest (--encryption-provider-config)', () => {
  let dir: string;
  let server: RestartableApiServer;
  const env = () => ({ KUBECONFIG: server.svcconfig, HOME: dir });

  beforeAll(async () => {
    RestartableApiServer.assertBuilt();
    dir = mkdtempSync(join(tmpdir(), 'svc-encryption-e2e-'));
    server = new RestartableApiServer(dir, await freeLoopbackPort());
  });
  afterAll(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps a Secret out of the store file, reads it back intact, and reads old and new Secrets after a key rotation', async () => {
    const [key1, key2] = [key(32), key(32)];
    const first = join(dir, 'encryption-1.yaml');
    writeFileSync(first, encryptionConfig(`      - aescbc:\n          keys:\n            - name: key1\n              secret: ${key1}`), { mode: 0o600 });
    await server.start([`--encryption-provider-config=${first}`]);
    await kubectl(['create', 'secret', 'generic', 'old', '--from-literal=password=first-plaintext-value'], env());
    await kubectl(['create', 'configmap', 'plain', '--from-literal=note=configmaps-stay-readable'], env());
    const got = await kubectl(['get', 'secret', 'old', '-o', 'jsonpath={.data.password}'], env());
    expect(Buffer.from(got.stdout, 'base64').toString()).toBe('first-plaintext-value');

    let bytes = storeBytes(dir);
    expect(bytes).toContain('k8s:enc:aescbc:v1:key1:');
    expect(bytes).not.toContain('first-plaintext-value');
    expect(bytes).not.toContain(Buffer.from('first-plaintext-value').toString('base64'));
    expect(bytes).toContain('configmaps-stay-readable');
    expect(statSync(join(dir, 'data', 'store.sqlite')).mode & 0o777).toBe(0o600);

    // Rotation, step one: the new key is listed first, the old one still reads.
    await server.stop();
    const second = join(dir, 'encryption-2.yaml');
    writeFileSync(
      second,
      encryptionConfig(
        `      - aesgcm:\n          keys:\n            - name: key2\n              secret: ${key2}\n      - aescbc:\n          keys:\n            - name: key1\n              secret: ${key1}`,
      ),
      { mode: 0o600 },
    );
    await server.start([`--encryption-provider-config=${second}`]);
    await kubectl(['create', 'secret', 'generic', 'new', '--from-literal=password=second-plaintext-value'], env());
    for (const [name, value] of [
      ['old', 'first-plaintext-value'],
      ['new', 'second-plaintext-value'],
    ]) {
      const read = await kubectl(['get', 'secret', name, '-o', 'jsonpath={.data.password}'], env());
      expect(Buffer.from(read.stdout, 'base64').toString()).toBe(value);
    }
    // Step two: rewriting every Secret moves it to the new key (Kubernetes' `kubectl replace` of all Secrets).
    const all = await kubectl(['get', 'secrets', '-o', 'json'], env());
    writeFileSync(join(dir, 'all.json'), all.stdout);
    await kubectl(['replace', '--validate=false', '-f', join(dir, 'all.json')], env());
    bytes = storeBytes(dir);
    expect(bytes).toContain('k8s:enc:aesgcm:v1:key2:');
    expect(bytes).not.toContain('second-plaintext-value');

    // Step three: the old key can go; every Secret still reads.
    await server.stop();
    const third = join(dir, 'encryption-3.yaml');
    writeFileSync(third, encryptionConfig(`      - aesgcm:\n          keys:\n            - name: key2\n              secret: ${key2}`), { mode: 0o600 });
    await server.start([`--encryption-provider-config=${third}`]);
    const old = await kubectl(['get', 'secret', 'old', '-o', 'jsonpath={.data.password}'], env());
    expect(Buffer.from(old.stdout, 'base64').toString()).toBe('first-plaintext-value');
  }, 180_000);

  it.each([
    ['a kms provider', '      - kms:\n          name: remote', 'the kms provider is not supported'],
    ['a short key', `      - aescbc:\n          keys:\n            - name: k\n              secret: ${key(10)}`, 'must be 16, 24, 32 bytes in base64'],
  ])('refuses %s: exit 2 with one line', (_what, providers, message) => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, encryptionConfig(providers));
    const result = spawnSync(
      process.execPath,
      [join(ROOT, 'bin', 'svc-apiserver.js'), `--encryption-provider-config=${file}`, `--data-dir=${join(dir, 'never')}`],
      {
        encoding: 'utf8',
        timeout: 20_000,
      },
    );
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('--encryption-provider-config');
  });
});
