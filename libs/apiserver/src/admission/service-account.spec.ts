import { builtinScheme, type ApiObject } from '@svc/api';
import { API_ACCESS_MOUNT_PATH, serviceAccountAdmission } from './service-account';

const pods = builtinScheme().byResource({ group: '', version: 'v1', resource: 'pods' })!;
const accounts = new Map<string, ApiObject>([
  ['ns/default', { metadata: { name: 'default' } }],
  ['ns/quiet', { metadata: { name: 'quiet' }, automountServiceAccountToken: false }],
  ['ns/puller', { metadata: { name: 'puller' }, imagePullSecrets: [{ name: 'registry' }] }],
]);
const plugin = serviceAccountAdmission(async (ns, name) => accounts.get(`${ns}/${name}`));

async function admit(spec: Record<string, unknown>, namespace = 'ns'): Promise<Record<string, any>> {
  const object: ApiObject = { metadata: { name: 'p' }, spec };
  await plugin.admit!({ operation: 'CREATE', definition: pods, namespace, name: 'p', subresource: '', object, dryRun: false });
  return object.spec as Record<string, any>;
}

describe('the ServiceAccount plugin mounts the API access volume', () => {
  it('adds one projected volume (token, CA, namespace) mounted read-only in every container', async () => {
    const spec = await admit({
      initContainers: [{ name: 'i', image: 'x' }],
      containers: [
        { name: 'a', image: 'x' },
        { name: 'b', image: 'x' },
      ],
    });
    expect(spec.volumes).toHaveLength(1);
    const volume = spec.volumes[0];
    expect(volume.name).toMatch(/^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(volume.projected).toEqual({
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
      defaultMode: 0o644,
    });
    for (const c of [...spec.initContainers, ...spec.containers]) {
      expect(c.volumeMounts).toEqual([{ name: volume.name, readOnly: true, mountPath: API_ACCESS_MOUNT_PATH }]);
    }
  });

  it('mounts nothing when the pod or, failing the pod, its account says no', async () => {
    expect((await admit({ automountServiceAccountToken: false, containers: [{ name: 'a' }] })).volumes).toBeUndefined();
    expect((await admit({ serviceAccountName: 'quiet', containers: [{ name: 'a' }] })).volumes).toBeUndefined();
    expect((await admit({ serviceAccountName: 'quiet', automountServiceAccountToken: true, containers: [{ name: 'a' }] })).volumes).toHaveLength(1);
  });

  it('leaves a container with its own mount at the path alone, and adds no volume when none needs it', async () => {
    const own = { name: 'mine', mountPath: API_ACCESS_MOUNT_PATH };
    const spec = await admit({ volumes: [{ name: 'mine', emptyDir: {} }], containers: [{ name: 'a', volumeMounts: [own] }] });
    expect(spec.volumes).toEqual([{ name: 'mine', emptyDir: {} }]);
    expect(spec.containers[0].volumeMounts).toEqual([own]);

    const mixed = await admit({ containers: [{ name: 'a', volumeMounts: [own] }, { name: 'b' }] });
    expect(mixed.containers[0].volumeMounts).toEqual([own]);
    expect(mixed.containers[1].volumeMounts[0].mountPath).toBe(API_ACCESS_MOUNT_PATH);
    expect(mixed.volumes).toHaveLength(1);
  });

  it('mounts for a default account not made yet, and takes hostile shapes without failing', async () => {
    expect((await admit({ containers: [{ name: 'a' }] }, 'fresh')).volumes).toHaveLength(1);
    const odd = await admit({ containers: [null, 'x', { name: 'a', volumeMounts: 'nope' }], volumes: 'nope' });
    expect(odd.containers[2].volumeMounts).toHaveLength(1);
    expect(odd.volumes).toHaveLength(1);
  });

  it("gives a pod without pull secrets its account's, and keeps a pod's own", async () => {
    expect((await admit({ serviceAccountName: 'puller', containers: [{ name: 'a' }] })).imagePullSecrets).toEqual([{ name: 'registry' }]);
    expect((await admit({ serviceAccountName: 'puller', imagePullSecrets: [{ name: 'mine' }], containers: [{ name: 'a' }] })).imagePullSecrets).toEqual([
      { name: 'mine' },
    ]);
    expect((await admit({ containers: [{ name: 'a' }] })).imagePullSecrets).toBeUndefined();
  });
});
