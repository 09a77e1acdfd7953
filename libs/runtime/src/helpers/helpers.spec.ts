import type { ConfigMap } from '@svc/api';
import { isNotFound } from '@svc/machinery';
import { eventually } from '../testing';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { EventRecorder } from './event-recorder';
import { handleFinalizer, hasFinalizer, withFinalizer, withoutFinalizer } from './finalizers';
import { AlreadyOwnedError, getControllerOf, isControlledBy, setControllerReference, setOwnerReference } from './owner-references';
import { updateStatusWithRetry } from './update-status';
import { createOrUpdate } from './create-or-update';

let env: TestEnvironment;
beforeAll(async () => {
  env = await startTestEnvironment();
  await env.client.namespaces.create({ metadata: { name: 'helpers' } });
});
afterAll(async () => {
  await env?.stop();
});

const owner = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'helpers', uid: 'u-1' } };
const other = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'api', namespace: 'helpers', uid: 'u-2' } };

describe('owner references', () => {
  it('sets a controller reference once and refuses a second controller', () => {
    const frozen = Object.freeze({ metadata: Object.freeze({ name: 'rs' }) }) as ConfigMap;
    const owned = setControllerReference(owner, frozen);
    expect(getControllerOf(owned)).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u-1', controller: true, blockOwnerDeletion: true });
    expect(isControlledBy(owned, owner)).toBe(true);
    expect(setControllerReference(owner, owned).metadata?.ownerReferences).toHaveLength(1);
    expect(() => setControllerReference(other, owned)).toThrow(AlreadyOwnedError);
    const shared = setOwnerReference(other, owned);
    expect(shared.metadata?.ownerReferences?.map((r) => r.name)).toEqual(['web', 'api']);
    expect(frozen.metadata).not.toHaveProperty('ownerReferences');
  });
});

describe('finalizers', () => {
  it('adds, keeps, and removes without touching the given object', () => {
    const obj = Object.freeze({ metadata: Object.freeze({ name: 'a', finalizers: Object.freeze(['x']) }) }) as unknown as ConfigMap;
    expect(hasFinalizer(withFinalizer(obj, 'y'), 'y')).toBe(true);
    expect(withFinalizer(obj, 'x').metadata?.finalizers).toEqual(['x']);
    expect(withoutFinalizer(obj, 'x').metadata?.finalizers).toEqual([]);
  });

  it('holds deletion until cleanup ran, then lets the server delete', async () => {
    const cms = env.client.configMaps.inNamespace('helpers');
    const f = 'example.com/cleanup';
    let obj = await cms.create({ metadata: { name: 'fin' } });
    const added = await handleFinalizer(cms, obj, f, () => undefined);
    expect(added.outcome).toBe('added');
    await cms.delete('fin');
    obj = await cms.get('fin');
    expect(obj.metadata?.deletionTimestamp).toBeTruthy();
    const cleaned: string[] = [];
    const done = await handleFinalizer(cms, obj, f, (o) => void cleaned.push(o.metadata!.name!));
    expect(done.outcome).toBe('finalized');
    expect(cleaned).toEqual(['fin']);
    await eventually(async () => {
      const gone = await cms.get('fin').then(
        () => false,
        (e: unknown) => isNotFound(e),
      );
      expect(gone).toBe(true);
    });
  });
});

describe('createOrUpdate', () => {
  it('creates, then writes only when mutate changes something, with the owner it sets', async () => {
    const owners = env.client.configMaps.inNamespace('helpers');
    const ownerObj = await owners.create({ metadata: { name: 'cou-owner' } });
    const cms = env.client.configMaps.inNamespace('helpers');
    const state = (message: string) => (cm: ConfigMap) => {
      cm.data = { ...cm.data, message };
      return setControllerReference(ownerObj, cm);
    };
    const created = await createOrUpdate(cms, { metadata: { name: 'cou' } }, state('hi'));
    expect(created.outcome).toBe('created');
    expect(created.object.data).toEqual({ message: 'hi' });
    expect(isControlledBy(created.object, ownerObj)).toBe(true);
    const again = await createOrUpdate(cms, { metadata: { name: 'cou' } }, state('hi'));
    expect(again.outcome).toBe('unchanged');
    expect(again.object.metadata?.resourceVersion).toBe(created.object.metadata?.resourceVersion);
    // Someone else's data is kept: mutate states only what it owns.
    await cms.patch('cou', { data: { extra: 'theirs' } });
    const updated = await createOrUpdate(cms, { metadata: { name: 'cou' } }, state('hello'));
    expect(updated.outcome).toBe('updated');
    expect(updated.object.data).toEqual({ message: 'hello', extra: 'theirs' });
    // From a cached copy, no read: a stale one is a conflict for the reconcile to retry.
    const fromCache = await createOrUpdate(cms, { metadata: { name: 'cou' } }, state('hello'), { existing: Object.freeze(updated.object) });
    expect(fromCache.outcome).toBe('unchanged');
    await expect(createOrUpdate(cms, { metadata: { name: 'cou' } }, state('bye'), { existing: created.object })).rejects.toMatchObject({
      status: { code: 409 },
    });
    await expect(createOrUpdate(cms, { metadata: { name: 'cou' } }, (cm) => ({ ...cm, metadata: { ...cm.metadata, name: 'other' } }))).rejects.toThrow(
      /must not change the object's name/,
    );
  });
});

describe('updateStatusWithRetry', () => {
  it('re-reads and re-applies the change after a conflict', async () => {
    const deployments = env.client.deployments.inNamespace('helpers');
    const created = await deployments.create({
      metadata: { name: 'st' },
      spec: {
        selector: { matchLabels: { app: 'st' } },
        template: { metadata: { labels: { app: 'st' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
      },
    });
    // Someone else writes first: the copy we hold is stale.
    await deployments.patch('st', { metadata: { labels: { touched: 'yes' } } });
    let calls = 0;
    const updated = await updateStatusWithRetry(deployments, created, (d) => {
      calls++;
      d.status = { ...d.status, observedGeneration: 1, replicas: 3 };
    });
    expect(calls).toBe(2);
    expect(updated.status?.replicas).toBe(3);
    expect(updated.metadata?.labels?.touched).toBe('yes');
  });
});

describe('EventRecorder', () => {
  it('writes Events about an object and counts repeats on the same Event', async () => {
    const cm = await env.client.configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ev', namespace: 'helpers' } });
    const recorder = new EventRecorder(env.client, { component: 'test-controller' });
    const first = await recorder.warning(cm, 'Failed', 'it broke');
    const second = await recorder.warning(cm, 'Failed', 'it broke');
    await recorder.normal(cm, 'Synced', 'all good');
    expect(second?.metadata?.name).toBe(first?.metadata?.name);
    const events = (await env.client.events.list({ namespace: 'helpers' })).items.filter((e) => e.involvedObject.name === 'ev');
    expect(events).toHaveLength(2);
    const failed = events.find((e) => e.reason === 'Failed');
    expect(failed).toMatchObject({
      type: 'Warning',
      message: 'it broke',
      count: 2,
      involvedObject: { kind: 'ConfigMap', uid: cm.metadata?.uid },
      source: { component: 'test-controller' },
    });
  });

  it('never throws when the Event cannot be written', async () => {
    const errors: unknown[] = [];
    const recorder = new EventRecorder(env.client, { component: 'c', onError: (e) => errors.push(e) });
    expect(await recorder.normal({ metadata: { name: 'x', namespace: 'no-such-namespace' } }, 'R', 'm')).toBeUndefined();
    expect(errors).toHaveLength(1);
  });
});
