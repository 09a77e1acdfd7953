import 'reflect-metadata';
import type { CustomResourceDefinition, Namespace } from '@svc/api';
import { BUILTIN_RESOURCES, type ResourceInfo } from '@svc/client';
import { isNotFound } from '@svc/machinery';
import { CONTROLLER_METRIC_NAMES } from '@svc/runtime';
import { eventually } from '@svc/runtime/testing';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { startControllers, type RunningControllers } from '../testing/start-controllers';
import { namespaceController } from '.';

const widgets: ResourceInfo = { group: 'test.svc.io', version: 'v1', resource: 'widgets', namespaced: true, kind: 'Widget' };

const widgetCrd: CustomResourceDefinition = {
  apiVersion: 'apiextensions.svc.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.test.svc.io' },
  spec: {
    group: 'test.svc.io',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } },
      },
    ],
  },
};

let env: TestEnvironment;
let running: RunningControllers;

async function installWidgetCrd(): Promise<void> {
  const crds = env.client.resource(BUILTIN_RESOURCES.customResourceDefinitions);
  await crds.create(widgetCrd);
  await eventually(async () => {
    const crd = await crds.get(widgetCrd.metadata!.name!);
    expect(crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')).toBe(true);
  }, 10_000);
}

async function gone(read: () => Promise<unknown>): Promise<boolean> {
  try {
    await read();
    return false;
  } catch (error) {
    if (isNotFound(error)) return true;
    throw error;
  }
}

/** Reconciles of the namespace controller that ended asking to look again after a delay. */
async function periodicLooks(): Promise<number> {
  const total = await running.manager.registry.getSingleMetric(CONTROLLER_METRIC_NAMES.reconcileTotal)?.get();
  return (total?.values ?? []).filter((v) => v.labels.controller === 'namespace' && v.labels.result === 'requeue_after').reduce((n, v) => n + v.value, 0);
}

function condition(ns: Namespace, type: string) {
  return ns.status?.conditions?.find((c) => c.type === type);
}

beforeAll(async () => {
  env = await startTestEnvironment();
  await installWidgetCrd();
  running = await startControllers(env, [namespaceController]);
});

afterAll(async () => {
  await running?.stop();
  await env?.stop();
});

describe('the namespace controller', () => {
  it('deletes everything in a deleted namespace, custom resources included, then the namespace itself', async () => {
    const c = env.client;
    await c.namespaces.create({ metadata: { name: 'doomed' } });
    await c.namespaces.create({ metadata: { name: 'bystander' } });
    const namespace = 'doomed';
    await c.configMaps.create({ metadata: { name: 'settings', namespace }, data: { a: '1' } });
    await c.secrets.create({ metadata: { name: 'token', namespace }, stringData: { t: 'x' } });
    await c.pods.create({ metadata: { name: 'web', namespace, labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    await c.services.create({ metadata: { name: 'web', namespace }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } });
    await c.dynamic(widgets).create({ metadata: { name: 'w1', namespace }, spec: { size: 3 } });
    await c.configMaps.create({ metadata: { name: 'kept', namespace: 'bystander' }, data: { b: '2' } });

    await c.namespaces.delete(namespace);

    await eventually(async () => expect(await gone(() => c.namespaces.get(namespace))).toBe(true), 15_000);
    for (const info of [
      BUILTIN_RESOURCES.configMaps.info,
      BUILTIN_RESOURCES.secrets.info,
      BUILTIN_RESOURCES.pods.info,
      BUILTIN_RESOURCES.services.info,
      widgets,
    ]) {
      expect((await c.dynamic(info).list({ namespace })).items).toEqual([]);
    }
    // Another namespace, not being deleted, keeps its content.
    expect((await c.configMaps.get('kept', { namespace: 'bystander' })).data).toEqual({ b: '2' });
    expect((await c.namespaces.get('bystander')).spec?.finalizers).toEqual(['svc']);
  });

  it('waits for objects held by finalizers, reporting them in its conditions, and goes once they are gone', async () => {
    const c = env.client;
    const namespace = 'held';
    await c.namespaces.create({ metadata: { name: namespace } });
    await c.configMaps.create({ metadata: { name: 'plain', namespace } });
    await c.configMaps.create({ metadata: { name: 'guarded', namespace, finalizers: ['example.com/hold'] } });
    await c.dynamic(widgets).create({ metadata: { name: 'w2', namespace, finalizers: ['example.com/hold'] }, spec: {} });

    await c.namespaces.delete(namespace);

    const terminating = await eventually(async () => {
      const ns = await c.namespaces.get(namespace);
      expect(condition(ns, 'NamespaceFinalizersRemaining')).toMatchObject({
        status: 'True',
        reason: 'SomeFinalizersRemain',
        message: 'Some content in the namespace has finalizers remaining: example.com/hold in 2 resource instances',
      });
      return ns;
    }, 10_000);
    expect(terminating.status?.phase).toBe('Terminating');
    expect(terminating.spec?.finalizers).toEqual(['svc']);
    expect(condition(terminating, 'NamespaceContentRemaining')).toMatchObject({
      status: 'True',
      reason: 'SomeResourcesRemain',
      message: 'Some resources are remaining: configmaps. has 1 resource instances, widgets.test.svc.io has 1 resource instances',
    });
    for (const [type, reason] of [
      ['NamespaceDeletionDiscoveryFailure', 'ResourcesDiscovered'],
      ['NamespaceDeletionGroupVersionParsingFailure', 'ParsedGroupVersions'],
      ['NamespaceDeletionContentFailure', 'ContentDeleted'],
    ]) {
      expect(condition(terminating, type)).toMatchObject({ status: 'False', reason });
    }
    expect(await gone(() => c.configMaps.get('plain', { namespace }))).toBe(true);
    expect((await c.configMaps.get('guarded', { namespace })).metadata?.deletionTimestamp).toBeDefined();

    // Creating anything in a terminating namespace is refused by the API server.
    await expect(c.configMaps.create({ metadata: { name: 'late', namespace } })).rejects.toMatchObject({ status: { code: 403 } });

    await c.configMaps.patch('guarded', { metadata: { finalizers: [] } }, 'merge', { namespace });
    await eventually(async () => {
      const ns = await c.namespaces.get(namespace);
      expect(condition(ns, 'NamespaceFinalizersRemaining')?.message).toBe(
        'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances',
      );
    }, 15_000);
    await c.dynamic(widgets).patch('w2', { metadata: { finalizers: [] } }, 'merge', { namespace });
    await eventually(async () => expect(await gone(() => c.namespaces.get(namespace))).toBe(true), 15_000);
  });

  it('waits for pods bound to a node through their grace period, without calling them a failure', async () => {
    const c = env.client;
    const namespace = 'graceful';
    await c.namespaces.create({ metadata: { name: namespace } });
    await c.pods.create({ metadata: { name: 'bound', namespace }, spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'nginx' }] } });

    await c.namespaces.delete(namespace);

    await eventually(async () => {
      const ns = await c.namespaces.get(namespace);
      expect(condition(ns, 'NamespaceContentRemaining')).toMatchObject({
        status: 'True',
        message: 'Some resources are remaining: pods. has 1 resource instances',
      });
      expect(condition(ns, 'NamespaceDeletionContentFailure')).toMatchObject({ status: 'False' });
    }, 10_000);
    expect((await c.pods.get('bound', { namespace })).metadata?.deletionTimestamp).toBeDefined();

    // What the node agent does once the pod's containers have stopped.
    await c.pods.delete('bound', { namespace, gracePeriodSeconds: 0 });
    await eventually(async () => expect(await gone(() => c.namespaces.get(namespace))).toBe(true), 15_000);
  });

  it('leaves a namespace that is not being deleted alone, looking at it again after the sync period', async () => {
    const c = env.client;
    const before = await periodicLooks();
    await c.namespaces.create({ metadata: { name: 'alive' } });
    await c.configMaps.create({ metadata: { name: 'stays', namespace: 'alive' } });
    // The controller has looked at it (every namespace is reconciled on creation) and only asked to look again later.
    await eventually(async () => expect(await periodicLooks()).toBeGreaterThan(before));
    const ns = await c.namespaces.get('alive');
    expect(ns.status).toEqual({ phase: 'Active' });
    expect(ns.spec?.finalizers).toEqual(['svc']);
    expect((await c.configMaps.get('stays', { namespace: 'alive' })).metadata?.deletionTimestamp).toBeUndefined();
  });
});
