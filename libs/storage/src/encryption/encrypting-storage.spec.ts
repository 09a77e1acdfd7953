import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedStorage, EMBEDDED_DATABASE_FILE } from '../embedded/embedded-storage';
import type { StoredObject } from '../storage';
import { describeStorageContract } from '../testing/contract-suite';
import { encryptingStorage, resourceMatches } from './encrypting-storage';
import { parseEncryptionConfig } from './encryption-config';

const directories: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-encrypting-'));
  directories.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of directories.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const key = (bytes = 32): string => randomBytes(bytes).toString('base64');
const config = (resources: string, ...providers: string[]) =>
  parseEncryptionConfig(
    JSON.stringify({
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'EncryptionConfiguration',
      resources: [{ resources: resources.split(','), providers: providers.map((p) => JSON.parse(p) as unknown) }],
    }),
  );
const aescbc = (name: string, secret: string) => JSON.stringify({ aescbc: { keys: [{ name, secret }] } });
const aesgcm = (name: string, secret: string) => JSON.stringify({ aesgcm: { keys: [{ name, secret }] } });
const secretbox = (name: string, secret: string) => JSON.stringify({ secretbox: { keys: [{ name, secret }] } });
const identity = JSON.stringify({ identity: {} });

describeStorageContract('the encrypting storage over the embedded store honours the storage contract (aescbc for every resource)', {
  open: async (options) =>
    encryptingStorage(EmbeddedStorage.open({ dataDir: tempDir(), compactionIntervalMs: 0, ...options }), config('*.*', aescbc('k', key())), '/registry'),
});

interface Secret extends StoredObject {
  metadata: { name: string; namespace: string; uid?: string; resourceVersion?: string };
  data: Record<string, string>;
}
const secret = (name: string, value: string): Secret => ({ metadata: { name, namespace: 'ns', uid: `uid-${name}` }, data: { password: value } });
const secretKey = (name: string) => `/registry/secrets/ns/${name}`;

describe('encryptingStorage', () => {
  it.each([
    ['aescbc', aescbc('k1', key())],
    ['aesgcm', aesgcm('k1', key(16))],
    ['secretbox', secretbox('k1', key())],
  ])('%s keeps a Secret value out of the store file and reads it back intact by get, list and watch', async (_name, provider) => {
    const dir = tempDir();
    const inner = EmbeddedStorage.open({ dataDir: dir, compactionIntervalMs: 0 });
    const store = encryptingStorage(inner, config('secrets', provider, identity), '/registry');
    const watcher = await store.watch<Secret>('/registry/secrets/');
    const created = await store.create(secretKey('a'), secret('a', 'plain-text-password-1'));
    expect(created.data.password).toBe('plain-text-password-1');
    expect((await store.get<Secret>(secretKey('a'))).data.password).toBe('plain-text-password-1');
    expect((await store.list<Secret>('/registry/secrets/ns/')).items.map((s) => s.data.password)).toEqual(['plain-text-password-1']);
    await store.create('/registry/configmaps/ns/c', { metadata: { uid: 'c' }, data: { v: 'visible-config-value' } });
    const raw = await inner.get<StoredObject & { encryptedData?: string }>(secretKey('a'));
    expect(raw.encryptedData).toMatch(/^k8s:enc:[a-z]+:v1:k1:/);
    for await (const event of watcher) {
      expect(event.type === 'ADDED' && event.object.data.password).toBe('plain-text-password-1');
      break;
    }
    await store.close();
    const file = readFileSync(join(dir, EMBEDDED_DATABASE_FILE)).toString('latin1');
    expect(file).not.toContain('plain-text-password-1');
    expect(file).not.toContain(Buffer.from('plain-text-password-1').toString('base64'));
    expect(file).toContain('visible-config-value');
  });

  it('reads Secrets of the old key after a rotation and rewrites a stale one on an unchanged update', async () => {
    const dir = tempDir();
    const [oldKey, newKey] = [key(), key()];
    const first = EmbeddedStorage.open({ dataDir: dir, compactionIntervalMs: 0 });
    const before = encryptingStorage(first, config('secrets', aescbc('old', oldKey)), '/registry');
    await before.create(secretKey('old'), secret('old', 'old-value'));
    await before.close();

    const inner = EmbeddedStorage.open({ dataDir: dir, compactionIntervalMs: 0 });
    const after = encryptingStorage(
      inner,
      config(
        'secrets',
        JSON.stringify({
          aescbc: {
            keys: [
              { name: 'new', secret: newKey },
              { name: 'old', secret: oldKey },
            ],
          },
        }),
      ),
      '/registry',
    );
    await after.create(secretKey('new'), secret('new', 'new-value'));
    expect((await after.get<Secret>(secretKey('old'))).data.password).toBe('old-value');
    expect((await inner.get<StoredObject & { encryptedData: string }>(secretKey('new'))).encryptedData).toMatch(/^k8s:enc:aescbc:v1:new:/);
    await after.guaranteedUpdate<Secret>(secretKey('old'), (current) => current as Secret);
    expect((await inner.get<StoredObject & { encryptedData: string }>(secretKey('old'))).encryptedData).toMatch(/^k8s:enc:aescbc:v1:new:/);
    await after.close();

    const withoutOld = encryptingStorage(
      EmbeddedStorage.open({ dataDir: dir, compactionIntervalMs: 0 }),
      config('secrets', aescbc('new', newKey)),
      '/registry',
    );
    expect((await withoutOld.get<Secret>(secretKey('old'))).data.password).toBe('old-value');
    await withoutOld.close();
  });

  it('refuses plain data without identity and an AES-GCM value moved under another key', async () => {
    const inner = EmbeddedStorage.open({ dataDir: tempDir(), compactionIntervalMs: 0 });
    await inner.create(secretKey('plain'), secret('plain', 'x'));
    const store = encryptingStorage(inner, config('secrets', aesgcm('k', key())), '/registry');
    await expect(store.get(secretKey('plain'))).rejects.toThrow('stored unencrypted and the identity provider is not configured');
    await store.create(secretKey('a'), secret('a', 'x'));
    await inner.create(secretKey('b'), await inner.get(secretKey('a')));
    await expect(store.get(secretKey('b'))).rejects.toThrow();
    await store.close();
  });

  it('matches resources as the configuration names them', () => {
    expect(resourceMatches('secrets', '', 'secrets')).toBe(true);
    expect(resourceMatches('secrets', 'apps', 'secrets')).toBe(false);
    expect(resourceMatches('deployments.apps', 'apps', 'deployments')).toBe(true);
    expect(resourceMatches('*.apps', 'apps', 'replicasets')).toBe(true);
    expect(resourceMatches('*.', '', 'configmaps')).toBe(true);
    expect(resourceMatches('*.', 'apps', 'deployments')).toBe(false);
    expect(resourceMatches('*.*', 'x.example.com', 'widgets')).toBe(true);
    expect(resourceMatches('leases.coordination.k8s.io', 'coordination.svc.io', 'leases')).toBe(true);
  });
});

describe('parseEncryptionConfig', () => {
  const refuse = (doc: unknown) => () => parseEncryptionConfig(JSON.stringify(doc));
  const base = { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'EncryptionConfiguration' };
  it('refuses what it cannot honour, naming the place', () => {
    expect(refuse({ ...base, kind: 'Other', resources: [] })).toThrow('kind must be EncryptionConfiguration');
    expect(refuse({ ...base, resources: [{ resources: ['secrets'], providers: [{ kms: { name: 'x' } }] }] })).toThrow(
      'resources[0].providers[0]: the kms provider is not supported by this server',
    );
    expect(refuse({ ...base, resources: [{ resources: ['secrets'], providers: [{ aescbc: { keys: [{ name: 'k', secret: key(7) }] } }] }] })).toThrow(
      'resources[0].providers[0].aescbc.keys[0].secret must be 16, 24, 32 bytes in base64',
    );
    expect(refuse({ ...base, resources: [{ resources: ['secrets'], providers: [{ secretbox: { keys: [{ name: 'k', secret: key(16) }] } }] }] })).toThrow(
      'must be 32 bytes in base64',
    );
    expect(refuse({ ...base, resources: [{ resources: ['secrets'], providers: [] }] })).toThrow('must list at least one provider');
    expect(refuse({ ...base, resources: [{ resources: ['secrets'], providers: [{ identity: {}, aescbc: {} }] }] })).toThrow('exactly one provider type');
  });
  it('reads YAML', () => {
    const parsed = parseEncryptionConfig(
      `apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: [secrets]\n    providers:\n      - aesgcm:\n          keys:\n            - name: key1\n              secret: ${key()}\n      - identity: {}\n`,
    );
    expect(parsed.rules[0].providers.map((p) => p.prefix)).toEqual(['k8s:enc:aesgcm:v1:key1:', '']);
  });
});
