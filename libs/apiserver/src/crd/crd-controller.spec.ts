import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinScheme, type ApiObject, type CustomResourceDefinition, type KindDefinition, type Scheme } from '@svc/api';
import { EmbeddedStorage, objectStorageKey, prefixKey, type Storage } from '@svc/storage';
import { CrdController, type CrdChange } from './crd-controller';
import { CRD_FINALIZER, findCondition } from './crd-conditions';
import type { CustomResourceCleaner } from './custom-resource-cleaner';

const PREFIX = '/registry';
const crdKey = (name: string) => objectStorageKey({ prefix: PREFIX, group: 'apiextensions.svc.io', resource: 'customresourcedefinitions', name });

function definition(
  plural: string,
  kind: string,
  group = 'example.com',
  extra: Partial<CustomResourceDefinition['spec']['names']> = {},
): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.svc.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}`, uid: `uid-${plural}` },
    spec: {
      group,
      names: { plural, kind, ...extra },
      scope: 'Namespaced',
      versions: [
        { name: 'v1beta1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', 'x-svc-preserve-unknown-fields': true } } },
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-svc-preserve-unknown-fields': true } } },
      ],
    },
  };
}

async function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('CrdController', () => {
  let dir: string;
  let storage: Storage;
  const controllers: CrdController[] = [];

  const start = (scheme: Scheme, options: { cleaner?: CustomResourceCleaner; retryDelayMs?: number } = {}) => {
    const c = new CrdController({
      scheme,
      storage,
      storePrefix: PREFIX,
      retryDelayMs: options.retryDelayMs ?? 20,
      cleaner: options.cleaner,
      now: () => new Date('2026-01-02T03:04:05.678Z'),
      logger: process.env.CRD_DEBUG ? { log: console.log, warn: console.log, error: console.log } : undefined,
    });
    controllers.push(c);
    c.start();
    return c;
  };
  const read = (name: string) => storage.get<CustomResourceDefinition>(crdKey(name));
  /**
   * The store acknowledges a write once it is committed, which may be after the controller's initial
   * list has run: the definition then reaches the controller through its watch, a moment later.
   * Waits until the controller has taken it up (its finalizer is on the stored definition).
   */
  const guarded = async (name: string): Promise<void> => {
    await waitFor(`${name} guarded by the controller`, async () => (await read(name)).metadata?.finalizers?.includes(CRD_FINALIZER) === true);
  };
  const condition = async (name: string, type: string) => findCondition((await read(name)).status?.conditions, type);
  const markDeleted = (name: string) =>
    storage.guaranteedUpdate<CustomResourceDefinition>(crdKey(name), (c) => ({
      ...c!,
      metadata: { ...c!.metadata, deletionTimestamp: '2026-01-02T03:04:05Z' },
    }));
  const widget = (namespace: string, name: string): ApiObject => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace } });
  const widgetKey = (namespace: string, name: string) => objectStorageKey({ prefix: PREFIX, group: 'example.com', resource: 'widgets', namespace, name });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'crd-controller-'));
    storage = EmbeddedStorage.open({ dataDir: dir, compactionIntervalMs: 0 });
  });

  afterEach(async () => {
    await Promise.all(controllers.splice(0).map((c) => c.stop()));
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the definitions already stored before it reports synced', async () => {
    await storage.create(crdKey('widgets.example.com'), definition('widgets', 'Widget', 'example.com', { shortNames: ['wd'] }));
    const scheme = builtinScheme();
    const controller = start(scheme);
    await controller.synced;
    expect(scheme.byResource({ group: 'example.com', version: 'v1', resource: 'widgets' })).toMatchObject({
      kind: 'Widget',
      listKind: 'WidgetList',
      singular: 'widget',
      shortNames: ['wd'],
      storage: true,
    });
    expect(scheme.byResource({ group: 'example.com', version: 'v1beta1', resource: 'widgets' })).toMatchObject({ storage: false });
    const stored = await read('widgets.example.com');
    expect(stored.metadata?.finalizers).toEqual([CRD_FINALIZER]);
    expect(stored.status).toEqual({
      conditions: [
        { type: 'NamesAccepted', status: 'True', lastTransitionTime: '2026-01-02T03:04:05Z', reason: 'NoConflicts', message: 'no conflicts found' },
        {
          type: 'Established',
          status: 'True',
          lastTransitionTime: '2026-01-02T03:04:05Z',
          reason: 'InitialNamesAccepted',
          message: 'the initial names have been accepted',
        },
      ],
      acceptedNames: { plural: 'widgets', singular: 'widget', shortNames: ['wd'], kind: 'Widget', listKind: 'WidgetList' },
      storedVersions: ['v1'],
    });
  });

  it('establishes definitions created later, follows updates, and writes nothing when nothing changed', async () => {
    const scheme = builtinScheme();
    const controller = start(scheme);
    const changes: CrdChange[] = [];
    controller.onChange((c) => changes.push(c));
    await controller.synced;
    await storage.create(crdKey('widgets.example.com'), definition('widgets', 'Widget'));
    await waitFor('Established', async () => (await condition('widgets.example.com', 'Established'))?.status === 'True');
    expect(scheme.byGvk({ group: 'example.com', version: 'v1', kind: 'Widget' })).toBeDefined();

    // Stop serving v1beta1.
    await storage.guaranteedUpdate<CustomResourceDefinition>(crdKey('widgets.example.com'), (c) => ({
      ...c!,
      spec: { ...c!.spec, versions: c!.spec.versions.map((v) => (v.name === 'v1beta1' ? { ...v, served: false } : v)) },
    }));
    await waitFor('v1beta1 gone', () => !scheme.byGvk({ group: 'example.com', version: 'v1beta1', kind: 'Widget' }));
    await controller.whenIdle();
    const settled = (await read('widgets.example.com')).metadata?.resourceVersion;
    await new Promise((r) => setTimeout(r, 100));
    await controller.whenIdle();
    expect((await read('widgets.example.com')).metadata?.resourceVersion).toBe(settled);
    expect(changes.map((c) => (c.type === 'deleted' ? [c.type] : [c.type, c.kinds.map((k) => k.version)]))).toEqual([
      ['installed', ['v1beta1', 'v1']],
      ['installed', ['v1']],
    ]);
  });

  it('refuses names taken in the group, and accepts them once they are free', async () => {
    const scheme = builtinScheme();
    const controller = start(scheme);
    await controller.synced;
    await storage.create(crdKey('widgets.example.com'), definition('widgets', 'Widget'));
    await waitFor('first established', async () => (await condition('widgets.example.com', 'Established'))?.status === 'True');
    await storage.create(crdKey('gizmos.example.com'), definition('gizmos', 'Widget'));
    const names = await waitFor('conflict', async () => {
      const c = await condition('gizmos.example.com', 'NamesAccepted');
      return c?.status === 'False' && c;
    });
    expect(names).toMatchObject({ reason: 'ListKindConflict', message: '"WidgetList" is already in use' });
    expect(await condition('gizmos.example.com', 'Established')).toMatchObject({
      status: 'False',
      reason: 'NotAccepted',
      message: 'not all names are accepted',
    });
    expect(scheme.byResource({ group: 'example.com', version: 'v1', resource: 'gizmos' })).toBeUndefined();
    // Kind and list kind were never accepted, so there are no accepted names to show yet.
    expect((await read('gizmos.example.com')).status?.acceptedNames).toBeUndefined();

    await markDeleted('widgets.example.com');
    await waitFor('second established', async () => (await condition('gizmos.example.com', 'Established'))?.status === 'True');
    expect(scheme.byResource({ group: 'example.com', version: 'v1', resource: 'gizmos' })).toMatchObject({ kind: 'Widget' });
  });

  it('refuses the names of a built-in kind of the same group', async () => {
    const scheme = builtinScheme();
    const controller = start(scheme);
    await storage.create(crdKey('deployments.apps'), definition('deployments', 'Deployment2', 'apps'));
    await controller.synced;
    await waitFor('conflict', async () => (await condition('deployments.apps', 'NamesAccepted'))?.reason === 'PluralConflict');
    expect(scheme.byResource({ group: 'apps', version: 'v1', resource: 'deployments' })?.source).toEqual({ type: 'builtin' });
  });

  it('on deletion leaves the scheme, deletes every custom resource, then lets the definition go', async () => {
    const scheme = builtinScheme();
    const controller = start(scheme);
    await storage.create(crdKey('widgets.example.com'), definition('widgets', 'Widget'));
    await controller.synced;
    await storage.create(widgetKey('a', 'one'), widget('a', 'one'));
    await storage.create(widgetKey('b', 'two'), widget('b', 'two'));
    const deleted: string[] = [];
    const watcher = await storage.watch<ApiObject>(prefixKey({ prefix: PREFIX, group: 'example.com', resource: 'widgets' }));
    const seen = (async () => {
      for await (const e of watcher) if (e.type === 'DELETED') deleted.push(e.object.metadata?.name ?? '');
    })();

    await markDeleted('widgets.example.com');
    await waitFor(
      'definition removed',
      async () => !(await storage.list(prefixKey({ prefix: PREFIX, group: 'apiextensions.svc.io', resource: 'customresourcedefinitions' }))).items.length,
    );
    expect(scheme.byResource({ group: 'example.com', version: 'v1', resource: 'widgets' })).toBeUndefined();
    expect(await storage.count(prefixKey({ prefix: PREFIX, group: 'example.com', resource: 'widgets' }))).toBe(0);
    await waitFor('DELETED events', () => deleted.length === 2);
    watcher.stop();
    await seen;
    expect(deleted.sort()).toEqual(['one', 'two']);
  });

  it('keeps a terminating definition until its objects are gone, saying why', async () => {
    const scheme = builtinScheme();
    let remaining = 2;
    const calls: KindDefinition[] = [];
    const cleaner: CustomResourceCleaner = {
      deleteAll: async (kind) => {
        calls.push(kind);
        return remaining > 0 ? remaining-- : 0;
      },
    };
    const controller = start(scheme, { cleaner, retryDelayMs: 150 });
    await storage.create(crdKey('widgets.example.com'), definition('widgets', 'Widget'));
    await controller.synced;
    await guarded('widgets.example.com');
    await markDeleted('widgets.example.com');
    await waitFor('pending', async () => (await condition('widgets.example.com', 'Terminating'))?.reason === 'InstanceDeletionPending');
    expect(await condition('widgets.example.com', 'Established')).toMatchObject({ status: 'False', reason: 'Terminating' });
    expect(scheme.byResource({ group: 'example.com', version: 'v1', resource: 'widgets' })?.terminating).toBe(true);
    await waitFor(
      'removed',
      async () => !(await storage.count(prefixKey({ prefix: PREFIX, group: 'apiextensions.svc.io', resource: 'customresourcedefinitions' }))),
    );
    expect(calls.length).toBe(3);
    // One call per definition, with the storage version: every version shares one set of objects.
    expect(calls.every((k) => k.version === 'v1' && k.resource === 'widgets')).toBe(true);
  });

  it('leaves a definition with other finalizers in the store once its own work is done', async () => {
    const scheme = builtinScheme();
    const controller = start(scheme);
    const def = definition('widgets', 'Widget');
    await storage.create(crdKey('widgets.example.com'), { ...def, metadata: { ...def.metadata, finalizers: ['example.com/keep'] } });
    await controller.synced;
    await guarded('widgets.example.com');
    await markDeleted('widgets.example.com');
    await waitFor('own finalizer removed', async () => !(await read('widgets.example.com')).metadata?.finalizers?.includes(CRD_FINALIZER));
    const stored = await read('widgets.example.com');
    expect(stored.metadata?.finalizers).toEqual(['example.com/keep']);
    expect(findCondition(stored.status?.conditions, 'Terminating')).toMatchObject({
      status: 'False',
      reason: 'InstanceDeletionCompleted',
      message: 'removed all instances',
    });
  });

  it('takes away a terminating definition left stored without finalizers (its delete lost a race with another write)', async () => {
    const scheme = builtinScheme();
    const controller = start(scheme);
    await storage.create(crdKey('widgets.example.com'), definition('widgets', 'Widget'));
    await controller.synced;
    await guarded('widgets.example.com');
    // The state the controller's own finalizer removal leaves when the delete right after it meets a Conflict.
    await storage.guaranteedUpdate<CustomResourceDefinition>(crdKey('widgets.example.com'), (c) => ({
      ...c!,
      metadata: { ...c!.metadata, deletionTimestamp: '2026-01-02T03:04:05Z', finalizers: [] },
    }));
    await waitFor(
      'definition removed',
      async () => !(await storage.count(prefixKey({ prefix: PREFIX, group: 'apiextensions.svc.io', resource: 'customresourcedefinitions' }))),
    );
    expect(scheme.byResource({ group: 'example.com', version: 'v1', resource: 'widgets' })).toBeUndefined();
  });

  it('lets a second server on the same store pick definitions up through its own watch, in agreement', async () => {
    const first = builtinScheme();
    const second = builtinScheme();
    const a = start(first);
    const b = start(second);
    await Promise.all([a.synced, b.synced]);
    await storage.create(crdKey('widgets.example.com'), definition('widgets', 'Widget'));
    await waitFor(
      'both serve',
      () =>
        first.byResource({ group: 'example.com', version: 'v1', resource: 'widgets' }) &&
        second.byResource({ group: 'example.com', version: 'v1', resource: 'widgets' }),
    );
    await waitFor('established', async () => (await condition('widgets.example.com', 'Established'))?.status === 'True');
    await Promise.all([a.whenIdle(), b.whenIdle()]);
    const rv = (await read('widgets.example.com')).metadata?.resourceVersion;
    await new Promise((r) => setTimeout(r, 100));
    await Promise.all([a.whenIdle(), b.whenIdle()]);
    expect((await read('widgets.example.com')).metadata?.resourceVersion).toBe(rv);

    await markDeleted('widgets.example.com');
    await waitFor(
      'both stop serving',
      () =>
        !first.byResource({ group: 'example.com', version: 'v1', resource: 'widgets' }) &&
        !second.byResource({ group: 'example.com', version: 'v1', resource: 'widgets' }),
    );
  });

  it('catches up with deletions that happened while it was not running', async () => {
    const scheme = builtinScheme();
    const first = start(scheme);
    await storage.create(crdKey('widgets.example.com'), definition('widgets', 'Widget'));
    await first.synced;
    await guarded('widgets.example.com');
    await first.stop();
    expect(scheme.byResource({ group: 'example.com', version: 'v1', resource: 'widgets' })).toBeDefined();
    // Removed behind its back, finalizer and all.
    await storage.delete(crdKey('widgets.example.com'));
    const again = start(scheme);
    await again.synced;
    await waitFor('unserved', () => !scheme.byResource({ group: 'example.com', version: 'v1', resource: 'widgets' }));
  });
});
