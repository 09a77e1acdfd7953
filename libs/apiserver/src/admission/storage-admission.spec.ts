import { builtinScheme, type ApiObject, type KindDefinition, type StorageClass } from '@svc/api';
import { isStatusError } from '@svc/machinery';
import type { AdmissionAttributes, AdmissionOperation } from './admission';
import { defaultStorageClassAdmission, persistentVolumeClaimResize, storageObjectInUseProtection, type StorageClassLookup } from './storage-admission';

const scheme = builtinScheme();
const claims = scheme.byResource({ group: '', version: 'v1', resource: 'persistentvolumeclaims' })!;
const volumes = scheme.byResource({ group: '', version: 'v1', resource: 'persistentvolumes' })!;

function lookupOf(classes: StorageClass[]): StorageClassLookup {
  return { get: (name) => Promise.resolve(classes.find((c) => c.metadata?.name === name)), list: () => Promise.resolve(classes) };
}

const sc = (name: string, extra: Partial<StorageClass> = {}, isDefault = false, created = '2026-01-01T00:00:00Z'): StorageClass => ({
  metadata: { name, creationTimestamp: created, annotations: isDefault ? { 'storageclass.kubernetes.io/is-default-class': 'true' } : {} },
  provisioner: 'svc.io/local-path',
  ...extra,
});

function attributes(
  operation: AdmissionOperation,
  definition: KindDefinition,
  object: ApiObject,
  oldObject?: ApiObject,
  subresource = '',
): AdmissionAttributes {
  return { operation, definition, namespace: 'default', name: object.metadata?.name ?? '', subresource, object, oldObject, dryRun: false };
}

const claim = (spec: Record<string, unknown> = {}, status: Record<string, unknown> = {}): ApiObject => ({
  metadata: { name: 'data', namespace: 'default' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
  status,
});

async function refusal(promise: unknown): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    if (isStatusError(error)) return `${error.code} ${error.status.message}`;
    throw error;
  }
}

describe('DefaultStorageClass', () => {
  it('gives a claim that names no class the default one; of two defaults, the newest', async () => {
    const plugin = defaultStorageClassAdmission(
      lookupOf([sc('slow', {}, true, '2026-01-01T00:00:00Z'), sc('fast', {}, true, '2026-01-02T00:00:00Z'), sc('other', {}, false, '2026-01-03T00:00:00Z')]),
    );
    const object = claim();
    await plugin.admit!(attributes('CREATE', claims, object));
    expect(object.spec).toMatchObject({ storageClassName: 'fast' });
  });

  it('leaves a claim that names a class, asks for none, or carries the beta annotation; and updates', async () => {
    const plugin = defaultStorageClassAdmission(lookupOf([sc('standard', {}, true)]));
    for (const object of [claim({ storageClassName: 'mine' }), claim({ storageClassName: '' })]) {
      const before = structuredClone(object.spec);
      await plugin.admit!(attributes('CREATE', claims, object));
      expect(object.spec).toEqual(before);
    }
    const annotated: ApiObject = { ...claim(), metadata: { name: 'data', annotations: { 'volume.beta.kubernetes.io/storage-class': 'old' } } };
    await plugin.admit!(attributes('CREATE', claims, annotated));
    expect(annotated.spec).not.toHaveProperty('storageClassName');
    const update = claim();
    await plugin.admit!(attributes('UPDATE', claims, update, claim()));
    expect(update.spec).not.toHaveProperty('storageClassName');
  });

  it('leaves the class out while no class is the default', async () => {
    const object = claim();
    await defaultStorageClassAdmission(lookupOf([sc('standard')])).admit!(attributes('CREATE', claims, object));
    expect(object.spec).not.toHaveProperty('storageClassName');
  });
});

describe('StorageObjectInUseProtection', () => {
  it('puts the protection finalizer on every new claim and volume, once', async () => {
    const plugin = storageObjectInUseProtection();
    const object = { ...claim(), metadata: { name: 'data', finalizers: ['example.com/keep'] } };
    await plugin.admit!(attributes('CREATE', claims, object));
    expect(object.metadata.finalizers).toEqual(['example.com/keep', 'kubernetes.io/pvc-protection']);
    const volume: ApiObject = { metadata: { name: 'pv', finalizers: ['kubernetes.io/pv-protection'] }, spec: {} };
    await plugin.admit!(attributes('CREATE', volumes, volume));
    expect(volume.metadata?.finalizers).toEqual(['kubernetes.io/pv-protection']);
    const status = claim();
    await plugin.admit!(attributes('CREATE', claims, status, undefined, 'status'));
    expect(status.metadata?.finalizers).toBeUndefined();
  });
});

describe('PersistentVolumeClaimResize', () => {
  const bound = (storageClassName: string) => claim({ storageClassName, volumeName: 'pv-1' }, { phase: 'Bound', capacity: { storage: '1Gi' } });
  const grown = (old: ApiObject, storage = '2Gi') => {
    const next = structuredClone(old);
    (next.spec as { resources: { requests: Record<string, string> } }).resources.requests.storage = storage;
    return next;
  };
  const plugin = persistentVolumeClaimResize(lookupOf([sc('expandable', { allowVolumeExpansion: true }), sc('fixed')]));

  it('lets a bound claim grow when its class allows volume expansion', async () => {
    const old = bound('expandable');
    expect(await refusal(plugin.validate!(attributes('UPDATE', claims, grown(old), old)))).toBeUndefined();
  });

  it("refuses growth otherwise, with Kubernetes' messages", async () => {
    const fixed = bound('fixed');
    expect(await refusal(plugin.validate!(attributes('UPDATE', claims, grown(fixed), fixed)))).toBe(
      '403 persistentvolumeclaims "data" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
    );
    const missing = bound('gone');
    expect(await refusal(plugin.validate!(attributes('UPDATE', claims, grown(missing), missing)))).toMatch(/must support resize$/);
    const pending = claim({ storageClassName: 'expandable' }, { phase: 'Pending' });
    expect(await refusal(plugin.validate!(attributes('UPDATE', claims, grown(pending), pending)))).toBe(
      '403 persistentvolumeclaims "data" is forbidden: Only bound persistent volume claims can be expanded',
    );
  });

  it('leaves alone what is not growth', async () => {
    const fixed = bound('fixed');
    expect(await refusal(plugin.validate!(attributes('UPDATE', claims, grown(fixed, '1Gi'), fixed)))).toBeUndefined();
    expect(await refusal(plugin.validate!(attributes('UPDATE', claims, grown(fixed, '512Mi'), fixed)))).toBeUndefined();
  });
});
