import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinScheme } from '@svc/api';
import { EmbeddedStorage, encryptingStorage, parseEncryptionConfig, type Storage, type StoredObject } from '@svc/storage';
import { moveLegacyKeys } from './legacy-key-layout';

type Named = StoredObject & { metadata: { name: string; namespace?: string; uid: string; resourceVersion?: string }; data?: Record<string, string> };

describe('moving a store of the earlier key layout to Kubernetes’ layout', () => {
  let dir: string;
  let inner: EmbeddedStorage;
  let storage: Storage;
  const scheme = builtinScheme();
  const builtIn = scheme.all().filter((d) => d.source.type === 'builtin');
  const groups = new Map(builtIn.map((d) => [d.resource, d.group]));
  const builtInGroups = new Set(builtIn.map((d) => d.group));

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-legacy-keys-'));
    inner = EmbeddedStorage.open({ dataDir: dir, compactionIntervalMs: 0 });
    const config = parseEncryptionConfig(
      JSON.stringify({
        apiVersion: 'apiserver.config.k8s.io/v1',
        kind: 'EncryptionConfiguration',
        resources: [{ resources: ['secrets'], providers: [{ aesgcm: { keys: [{ name: 'k1', secret: randomBytes(32).toString('base64') }] } }] }],
      }),
    );
    storage = encryptingStorage(
      inner,
      config,
      '/registry',
      (resource) => groups.get(resource),
      (group) => builtInGroups.has(group),
    );
  });
  afterEach(async () => {
    await inner.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const object = (name: string, namespace?: string, data?: Record<string, string>): Named => ({ metadata: { name, namespace, uid: `uid-${name}` }, data });

  test('built-in objects move (encrypted ones sealed again for their new key), custom resources stay, a second run finds nothing', async () => {
    await storage.create('/registry/core/pods/ns/web', object('web', 'ns'));
    await storage.create('/registry/core/nodes/n1', object('n1'));
    await storage.create('/registry/apps/deployments/ns/d', object('d', 'ns'));
    await storage.create('/registry/core/secrets/ns/s', object('s', 'ns', { password: 'hunter2' }));
    await storage.create('/registry/example.com/widgets/ns/w', object('w', 'ns'));
    // Already moved by another server: the newer object stays, the old key goes.
    await storage.create('/registry/configmaps/ns/c', object('c', 'ns', { v: 'new' }));
    await storage.create('/registry/core/configmaps/ns/c', object('c', 'ns', { v: 'old' }));

    expect(await moveLegacyKeys(storage, '/registry', scheme)).toEqual({ moved: 4, present: 1 });

    expect((await storage.get<Named>('/registry/pods/ns/web')).metadata.uid).toBe('uid-web');
    expect((await storage.get<Named>('/registry/minions/n1')).metadata.uid).toBe('uid-n1');
    expect((await storage.get<Named>('/registry/deployments/ns/d')).metadata.uid).toBe('uid-d');
    expect((await storage.get<Named>('/registry/secrets/ns/s')).data).toEqual({ password: 'hunter2' });
    expect(JSON.stringify(await inner.get('/registry/secrets/ns/s'))).not.toContain('hunter2');
    expect((await storage.get<Named>('/registry/configmaps/ns/c')).data).toEqual({ v: 'new' });
    expect((await storage.get<Named>('/registry/example.com/widgets/ns/w')).metadata.uid).toBe('uid-w');
    for (const old of ['/registry/core/', '/registry/apps/']) expect((await inner.list(old)).items).toEqual([]);

    expect(await moveLegacyKeys(storage, '/registry', scheme)).toEqual({ moved: 0, present: 0 });
  });
});
