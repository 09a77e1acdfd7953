import 'reflect-metadata';
import type { Event, PersistentVolume, PersistentVolumeClaim } from '@svc/api';
import { isNotFound } from '@svc/machinery';
import { eventually } from '@svc/runtime/testing';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { startControllers, type RunningControllers } from '../testing/start-controllers';
import { pvcProtectionController } from '../pvcprotection';
import { persistentVolumeBinderController } from './index';
import { externalProvisioningMessage } from './claim-binder-reconciler';

let env: TestEnvironment;
let running: RunningControllers;
const NS = 'pvb';

beforeAll(async () => {
  env = await startTestEnvironment();
  // Admission gives claims the pvc-protection finalizer: its controller lets deleted ones go.
  running = await startControllers(env, [persistentVolumeBinderController, pvcProtectionController], ['--pvclaimbinder-sync-period=1s']);
  await env.client.namespaces.create({ metadata: { name: NS } });
});

afterAll(async () => {
  await running?.stop();
  await env?.stop();
});

function volume(
  name: string,
  size: string,
  options: { className?: string; policy?: string; modes?: string[]; claimRef?: { name: string }; annotations?: Record<string, string> } = {},
): PersistentVolume {
  return {
    metadata: { name, annotations: options.annotations },
    spec: {
      capacity: { storage: size },
      accessModes: options.modes ?? ['ReadWriteOnce'],
      hostPath: { path: `/tmp/${name}` },
      persistentVolumeReclaimPolicy: options.policy ?? 'Retain',
      ...(options.className !== undefined ? { storageClassName: options.className } : {}),
      ...(options.claimRef ? { claimRef: { namespace: NS, name: options.claimRef.name } } : {}),
    },
  };
}

function claim(name: string, size: string, options: { className?: string; volumeName?: string; modes?: string[] } = {}): PersistentVolumeClaim {
  return {
    metadata: { name, namespace: NS },
    spec: {
      accessModes: options.modes ?? ['ReadWriteOnce'],
      resources: { requests: { storage: size } },
      ...(options.className !== undefined ? { storageClassName: options.className } : {}),
      ...(options.volumeName ? { volumeName: options.volumeName } : {}),
    },
  };
}

const getClaim = (name: string) => env.client.persistentVolumeClaims.get(name, { namespace: NS });
const getVolume = (name: string) => env.client.persistentVolumes.get(name);

async function eventsOf(name: string): Promise<Event[]> {
  const list = await env.client.events.list({ namespace: NS, fieldSelector: `involvedObject.name=${name}` });
  return list.items;
}

async function expectEvent(name: string, reason: string, message: string): Promise<void> {
  await eventually(async () => expect((await eventsOf(name)).map((e) => [e.reason, e.message])).toContainEqual([reason, message]), 10_000);
}

describe('the persistent volume controller', () => {
  it('binds a claim to the smallest volume that fits, both ways, with the annotations and phases', async () => {
    await env.client.persistentVolumes.create(volume('pv-big', '10Gi', { className: '' }));
    await env.client.persistentVolumes.create(volume('pv-fit', '2Gi', { className: '' }));
    await env.client.persistentVolumes.create(volume('pv-small', '1Gi', { className: '' }));
    // Made Available by the controller: its cache holds all three before the claim comes (their
    // watch and the claims' are separate, and a claim seen first would take what the cache held).
    for (const name of ['pv-big', 'pv-fit', 'pv-small']) await eventually(async () => expect((await getVolume(name)).status?.phase).toBe('Available'), 10_000);
    await env.client.persistentVolumeClaims.create(claim('c-fit', '1500Mi', { className: '' }));
    const bound = await eventually(async () => {
      const c = await getClaim('c-fit');
      expect(c.status?.phase).toBe('Bound');
      return c;
    }, 10_000);
    expect(bound.spec?.volumeName).toBe('pv-fit');
    expect(bound.metadata?.annotations).toMatchObject({ 'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes' });
    expect(bound.status).toMatchObject({ accessModes: ['ReadWriteOnce'], capacity: { storage: '2Gi' } });
    const pv = await eventually(async () => {
      const v = await getVolume('pv-fit');
      expect(v.status?.phase).toBe('Bound');
      return v;
    }, 10_000);
    expect(pv.spec?.claimRef).toMatchObject({ kind: 'PersistentVolumeClaim', namespace: NS, name: 'c-fit', uid: bound.metadata?.uid });
    expect(pv.metadata?.annotations?.['pv.kubernetes.io/bound-by-controller']).toBe('yes');
    expect(pv.status?.lastPhaseTransitionTime).toBeDefined();
    await eventually(async () => expect((await getVolume('pv-small')).status?.phase).toBe('Available'), 10_000);
  });

  it('honours volumeName and claimRef reservations', async () => {
    await env.client.persistentVolumes.create(volume('pv-named', '1Gi', { className: '' }));
    await env.client.persistentVolumes.create(volume('pv-reserved', '1Gi', { className: '', claimRef: { name: 'c-reserved' } }));
    await env.client.persistentVolumeClaims.create(claim('c-named', '1Gi', { className: '', volumeName: 'pv-named' }));
    await env.client.persistentVolumeClaims.create(claim('c-reserved', '1Gi', { className: '' }));
    await eventually(async () => {
      const named = await getClaim('c-named');
      expect(named.status?.phase).toBe('Bound');
      // The user chose the volume: not bound by the controller on the claim's side.
      expect(named.metadata?.annotations?.['pv.kubernetes.io/bound-by-controller']).toBeUndefined();
      expect((await getClaim('c-reserved')).spec?.volumeName).toBe('pv-reserved');
      const reserved = await getVolume('pv-reserved');
      expect(reserved.status?.phase).toBe('Bound');
      expect(reserved.metadata?.annotations?.['pv.kubernetes.io/bound-by-controller']).toBeUndefined();
    }, 10_000);
    await env.client.persistentVolumeClaims.create(claim('c-too-big', '5Gi', { className: '', volumeName: 'pv-small' }));
    await expectEvent('c-too-big', 'VolumeMismatch', 'Cannot bind to requested volume "pv-small": requested PV is too small');
  });

  it('leaves a claim nothing fits Pending with the event Kubernetes writes', async () => {
    await env.client.persistentVolumeClaims.create(claim('c-huge', '1Ti', { className: '' }));
    await expectEvent('c-huge', 'FailedBinding', 'no persistent volumes available for this claim and no storage class is set');
    await env.client.persistentVolumeClaims.create(claim('c-rwx', '1Gi', { className: '', modes: ['ReadWriteMany'] }));
    await expectEvent('c-rwx', 'FailedBinding', 'no persistent volumes available for this claim and no storage class is set');
    expect((await getClaim('c-huge')).status?.phase).toBe('Pending');
    await env.client.persistentVolumeClaims.create(claim('c-noclass', '1Gi', { className: 'missing' }));
    await expectEvent('c-noclass', 'ProvisioningFailed', 'storageclass.storage.k8s.io "missing" not found');
  });

  it('hands a claim to its class’s external provisioner, and waits for the first consumer when the class says so', async () => {
    await env.client.storageClasses.create({ metadata: { name: 'ext' }, provisioner: 'example.com/disk', volumeBindingMode: 'Immediate' });
    await env.client.storageClasses.create({ metadata: { name: 'late' }, provisioner: 'example.com/disk', volumeBindingMode: 'WaitForFirstConsumer' });
    await env.client.persistentVolumeClaims.create(claim('c-ext', '1Gi', { className: 'ext' }));
    await env.client.persistentVolumeClaims.create(claim('c-late', '1Gi', { className: 'late' }));
    await eventually(async () => {
      expect((await getClaim('c-ext')).metadata?.annotations).toMatchObject({
        'volume.kubernetes.io/storage-provisioner': 'example.com/disk',
        'volume.beta.kubernetes.io/storage-provisioner': 'example.com/disk',
      });
    }, 10_000);
    await expectEvent('c-ext', 'ExternalProvisioning', externalProvisioningMessage('example.com/disk'));
    await expectEvent('c-late', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding');
    expect((await getClaim('c-late')).metadata?.annotations?.['volume.kubernetes.io/storage-provisioner']).toBeUndefined();

    // The scheduler picks a node: now the provisioner is asked.
    const late = await getClaim('c-late');
    await env.client.persistentVolumeClaims.update(
      { ...late, metadata: { ...late.metadata, annotations: { ...late.metadata?.annotations, 'volume.kubernetes.io/selected-node': 'n1' } } },
      { namespace: NS },
    );
    await eventually(
      async () => expect((await getClaim('c-late')).metadata?.annotations?.['volume.kubernetes.io/storage-provisioner']).toBe('example.com/disk'),
      10_000,
    );

    // The provisioner's volume, pre-bound to the claim, is bound by the controller.
    const claimed = await getClaim('c-late');
    await env.client.persistentVolumes.create({
      ...volume('pvc-late', '1Gi', { className: 'late', policy: 'Delete', annotations: { 'pv.kubernetes.io/provisioned-by': 'example.com/disk' } }),
      spec: {
        ...volume('x', '1Gi').spec,
        storageClassName: 'late',
        persistentVolumeReclaimPolicy: 'Delete',
        claimRef: { namespace: NS, name: 'c-late', uid: claimed.metadata?.uid },
      },
    });
    await eventually(async () => {
      expect((await getClaim('c-late')).status?.phase).toBe('Bound');
      expect((await getVolume('pvc-late')).status?.phase).toBe('Bound');
    }, 10_000);

    // Deleted: Released, and left to the provisioner that made it.
    await env.client.persistentVolumeClaims.delete('c-late', { namespace: NS });
    await eventually(async () => expect((await getVolume('pvc-late')).status?.phase).toBe('Released'), 10_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await getVolume('pvc-late')).status?.phase).toBe('Released');
  });

  it('releases a Retain volume and keeps it; fails a Delete volume no provisioner made', async () => {
    await env.client.persistentVolumes.create(volume('pv-retain', '3Gi', { className: 'keep' }));
    await env.client.persistentVolumes.create(volume('pv-delete', '3Gi', { className: 'drop', policy: 'Delete' }));
    await env.client.persistentVolumeClaims.create(claim('c-retain', '3Gi', { className: 'keep' }));
    await env.client.persistentVolumeClaims.create(claim('c-delete', '3Gi', { className: 'drop' }));
    await eventually(async () => {
      expect((await getClaim('c-retain')).status?.phase).toBe('Bound');
      expect((await getClaim('c-delete')).status?.phase).toBe('Bound');
    }, 10_000);
    await env.client.persistentVolumeClaims.delete('c-retain', { namespace: NS });
    await env.client.persistentVolumeClaims.delete('c-delete', { namespace: NS });
    await eventually(async () => {
      expect((await getVolume('pv-retain')).status?.phase).toBe('Released');
      const failed = await getVolume('pv-delete');
      expect(failed.status?.phase).toBe('Failed');
      expect(failed.status?.message).toBe('error getting deleter volume plugin for volume "pv-delete": no deletable volume plugin matched');
    }, 10_000);
    // A new claim does not take a Released volume.
    await env.client.persistentVolumeClaims.create(claim('c-again', '3Gi', { className: 'keep' }));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await getClaim('c-again')).status?.phase).toBe('Pending');
  });

  it('gives a claim with no class the default class once one exists (retroactive default)', async () => {
    const created = await env.client.persistentVolumeClaims.create(claim('c-later', '50Gi'));
    // Whatever admission did, the controller fills in only a claim that names no class.
    if (created.spec?.storageClassName !== undefined) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await getClaim('c-later')).spec?.storageClassName).toBeUndefined();
    await env.client.storageClasses.create({
      metadata: { name: 'standard', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
      provisioner: 'example.com/disk',
    });
    await eventually(async () => expect((await getClaim('c-later')).spec?.storageClassName).toBe('standard'), 10_000);
  });

  it('marks a bound claim Lost when its volume goes', async () => {
    await env.client.persistentVolumes.create(volume('pv-lost', '7Gi', { className: 'lost' }));
    await env.client.persistentVolumeClaims.create(claim('c-lost', '7Gi', { className: 'lost' }));
    await eventually(async () => expect((await getClaim('c-lost')).status?.phase).toBe('Bound'), 10_000);
    const pv = await getVolume('pv-lost');
    if (pv.metadata?.finalizers?.length) await env.client.persistentVolumes.update({ ...pv, metadata: { ...pv.metadata, finalizers: [] } });
    await env.client.persistentVolumes.delete('pv-lost').catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
    await eventually(async () => expect((await getClaim('c-lost')).status?.phase).toBe('Lost'), 10_000);
    await expectEvent('c-lost', 'ClaimLost', 'Bound claim has lost its PersistentVolume. Data on the volume is lost!');
  });
});
