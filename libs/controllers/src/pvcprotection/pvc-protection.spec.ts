import 'reflect-metadata';
import type { PersistentVolumeClaim, Pod } from '@svc/api';
import { isNotFound } from '@svc/machinery';
import { eventually } from '@svc/runtime/testing';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { startControllers, type RunningControllers } from '../testing/start-controllers';
import { pvProtectionController } from '../pvprotection';
import { ephemeralVolumeController } from '../ephemeral';
import { garbageCollectorController } from '../garbage-collector';
import { pvcProtectionController } from './index';

let env: TestEnvironment;
let running: RunningControllers;
const NS = 'protect';

beforeAll(async () => {
  env = await startTestEnvironment();
  running = await startControllers(env, [pvcProtectionController, pvProtectionController, ephemeralVolumeController, garbageCollectorController]);
  await env.client.namespaces.create({ metadata: { name: NS } });
});

afterAll(async () => {
  await running?.stop();
  await env?.stop();
});

const claim = (name: string): PersistentVolumeClaim => ({
  metadata: { name, namespace: NS },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
});

const pod = (name: string, volumes: Pod['spec']['volumes'], nodeName = 'n1'): Pod => ({
  metadata: { name, namespace: NS },
  spec: { nodeName, containers: [{ name: 'c', image: 'busybox' }], volumes },
});

async function gone(get: () => Promise<unknown>): Promise<boolean> {
  try {
    await get();
    return false;
  } catch (error) {
    if (isNotFound(error)) return true;
    throw error;
  }
}

const getClaim = (name: string) => env.client.persistentVolumeClaims.get(name, { namespace: NS });

describe('the volume protection controllers', () => {
  it('keep a claim a running pod uses until the pod has terminated', async () => {
    await env.client.persistentVolumeClaims.create(claim('used'));
    await eventually(async () => expect((await getClaim('used')).metadata?.finalizers).toContain('kubernetes.io/pvc-protection'), 10_000);
    const user = await env.client.pods.create(pod('user', [{ name: 'data', persistentVolumeClaim: { claimName: 'used' } }]));
    await env.client.persistentVolumeClaims.delete('used', { namespace: NS });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await getClaim('used')).metadata?.deletionTimestamp).toBeDefined();
    // A finished pod no longer holds it.
    await env.client.pods.updateStatus({ ...user, status: { phase: 'Succeeded' } }, { namespace: NS });
    await eventually(async () => expect(await gone(() => getClaim('used'))).toBe(true), 10_000);
  });

  it('let a claim no pod uses go at once, and one used only by an unscheduled pod', async () => {
    await env.client.persistentVolumeClaims.create(claim('idle'));
    await env.client.pods.create(pod('waiting', [{ name: 'data', persistentVolumeClaim: { claimName: 'idle' } }], ''));
    await eventually(async () => expect((await getClaim('idle')).metadata?.finalizers).toContain('kubernetes.io/pvc-protection'), 10_000);
    await env.client.persistentVolumeClaims.delete('idle', { namespace: NS });
    await eventually(async () => expect(await gone(() => getClaim('idle'))).toBe(true), 10_000);
  });

  it('keep a Bound volume until it is not Bound', async () => {
    const created = await env.client.persistentVolumes.create({
      metadata: { name: 'pv-protected' },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/x' } },
    });
    await eventually(
      async () => expect((await env.client.persistentVolumes.get('pv-protected')).metadata?.finalizers).toContain('kubernetes.io/pv-protection'),
      10_000,
    );
    const current = await env.client.persistentVolumes.get('pv-protected');
    await env.client.persistentVolumes.updateStatus({ ...current, status: { phase: 'Bound' } });
    await env.client.persistentVolumes.delete('pv-protected');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const held = await env.client.persistentVolumes.get('pv-protected');
    expect(held.metadata?.deletionTimestamp).toBeDefined();
    await env.client.persistentVolumes.updateStatus({ ...held, status: { phase: 'Released' } });
    await eventually(async () => expect(await gone(() => env.client.persistentVolumes.get('pv-protected'))).toBe(true), 10_000);
    expect(created.metadata?.name).toBe('pv-protected');
  });

  it('make the claim of an ephemeral volume, owned by its pod, and refuse a claim the pod does not own', async () => {
    const template = { metadata: { labels: { kind: 'scratch' } }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
    const owner = await env.client.pods.create(pod('eph', [{ name: 'scratch', ephemeral: { volumeClaimTemplate: template } }]));
    const made = await eventually(() => getClaim('eph-scratch'), 10_000);
    expect(made.metadata?.labels).toEqual({ kind: 'scratch' });
    expect(made.metadata?.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'Pod', name: 'eph', uid: owner.metadata?.uid, controller: true, blockOwnerDeletion: true },
    ]);
    expect(made.spec?.resources?.requests?.storage).toBe('1Gi');

    await env.client.persistentVolumeClaims.create(claim('other-scratch'));
    await env.client.pods.create(pod('other', [{ name: 'scratch', ephemeral: { volumeClaimTemplate: template } }]));
    await eventually(async () => {
      const events = await env.client.events.list({ namespace: NS, fieldSelector: 'involvedObject.name=other' });
      expect(events.items.map((e) => [e.reason, e.message])).toContainEqual([
        'FailedBinding',
        `ephemeral volume scratch: PVC ${NS}/other-scratch was not created for pod ${NS}/other (pod is not owner)`,
      ]);
    }, 10_000);

    // The claim goes with its pod (the garbage collector follows the owner reference).
    await env.client.pods.delete('eph', { namespace: NS, gracePeriodSeconds: 0 });
    await eventually(async () => expect(await gone(() => getClaim('eph-scratch'))).toBe(true), 15_000);
  });
});
