import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { ApiObject, ConfigMap, CustomResourceDefinition, OwnerReference } from '@svc/api';
import { BUILTIN_RESOURCES, Client, type ClientConfig, type ResourceClient } from '@svc/client';
import { isNotFound } from '@svc/machinery';
import { Manager } from '@svc/runtime';
import { eventually } from '@svc/runtime/testing';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { startControllers, type RunningControllers } from '../testing/start-controllers';
import { GarbageCollector, GarbageCollectorOptions, garbageCollectorController, monitorName } from './index';

const ns = 'gc';
const HOLD = 'example.com/hold';
const WAIT_MS = 10_000;

let env: TestEnvironment;
let running: RunningControllers;
let configMaps: ResourceClient<ConfigMap>;

function refTo(owner: ApiObject, extra: Partial<OwnerReference> = {}): OwnerReference {
  const { apiVersion, kind, metadata } = owner;
  return { apiVersion: apiVersion!, kind: kind!, name: metadata!.name!, uid: metadata!.uid!, ...extra };
}

function configMap(name: string, ownerReferences: OwnerReference[] = [], finalizers?: string[]): ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, ownerReferences, ...(finalizers ? { finalizers } : {}) } };
}

async function createConfigMap(name: string, ownerReferences: OwnerReference[] = [], finalizers?: string[]): Promise<ConfigMap> {
  return { apiVersion: 'v1', kind: 'ConfigMap', ...(await configMaps.create(configMap(name, ownerReferences, finalizers))) };
}

async function expectGone(client: ResourceClient<ApiObject> | ResourceClient<ConfigMap>, name: string, namespace: string | undefined = ns): Promise<void> {
  const error = await client.get(name, { namespace }).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isNotFound(error)) throw new Error(`${name} still exists`);
}

async function releaseHold(name: string): Promise<void> {
  await configMaps.patch(name, { metadata: { finalizers: null } } as never, 'merge', { namespace: ns }).catch((e: unknown) => {
    if (!isNotFound(e)) throw e;
  });
}

/** A client that runs `between` after its first discovery is answered and before it returns that answer. */
class ClientWithLateChange extends Client {
  constructor(
    config: ClientConfig,
    private between: (() => Promise<void>) | undefined,
  ) {
    super(config);
  }

  override async discoverResources(): ReturnType<Client['discoverResources']> {
    const found = await super.discoverResources();
    const between = this.between;
    this.between = undefined;
    await between?.();
    return found;
  }
}

const ownerUids = (obj: ApiObject) => (obj.metadata?.ownerReferences ?? []).map((r) => r.uid);

beforeAll(async () => {
  env = await startTestEnvironment();
  configMaps = env.client.configMaps.inNamespace(ns);
  await env.client.namespaces.create({ metadata: { name: ns } });
  running = await startControllers(env, [garbageCollectorController], ['--concurrent-gc-syncs=4']);
  await eventually(() => {
    const monitors = running.manager.getControllers().filter((c) => c.name.startsWith('garbagecollector-'));
    expect(monitors.map((c) => c.name)).toEqual(
      expect.arrayContaining(['garbagecollector-configmaps', 'garbagecollector-secrets', 'garbagecollector-deployments.apps']),
    );
    expect(monitors.every((c) => c.running)).toBe(true);
  }, WAIT_MS);
}, 30_000);

afterAll(async () => {
  await running?.stop();
  await env?.stop();
});

describe('the garbage collector', () => {
  it('monitors every listable, watchable, deletable type but events, with --concurrent-gc-syncs workers', () => {
    const gc = running.container.get(GarbageCollector);
    const names = gc.monitorNames();
    expect(names).toEqual(expect.arrayContaining(['garbagecollector-leases.coordination.k8s.io', 'garbagecollector-namespaces', 'garbagecollector-pods']));
    expect(names).not.toContain('garbagecollector-events');
    const monitor = running.manager.getControllers().find((c) => c.name === 'garbagecollector-configmaps');
    expect(monitor?.concurrency).toBe(4);
    // No other controller runs here, so every type is cached as metadata only.
    expect(running.manager.informers.keys()).toEqual(expect.arrayContaining(['v1/configmaps#metadata', 'v1/secrets#metadata', 'v1/pods#metadata']));
    expect(running.manager.informers.keys()).not.toContain('v1/configmaps');
  });

  it('deletes the dependents of a deleted owner in the background, whatever their kinds', async () => {
    const owner = await createConfigMap('bg-owner');
    await createConfigMap('bg-cm', [refTo(owner)]);
    await env.client.secrets.create({
      metadata: { name: 'bg-secret', namespace: ns, ownerReferences: [refTo(owner, { controller: true, blockOwnerDeletion: true })] },
    });

    await configMaps.delete('bg-owner');
    await eventually(async () => {
      await expectGone(configMaps, 'bg-cm');
      await expectGone(env.client.secrets, 'bg-secret');
    }, WAIT_MS);
  });

  it('follows a namespaced dependent to a cluster-scoped owner', async () => {
    const node = await env.client.nodes.create({ metadata: { name: 'gc-node' } });
    await createConfigMap('node-dep', [refTo({ apiVersion: 'v1', kind: 'Node', metadata: node.metadata })]);
    // The owner exists: a look that misses it in the dependent's namespace would delete the dependent.
    await createConfigMap('node-sentinel', [{ apiVersion: 'v1', kind: 'Node', name: 'no-such-node', uid: randomUUID() }]);
    await eventually(() => expectGone(configMaps, 'node-sentinel'), WAIT_MS);
    expect((await configMaps.get('node-dep')).metadata?.deletionTimestamp).toBeUndefined();

    await env.client.nodes.delete('gc-node');
    await eventually(() => expectGone(configMaps, 'node-dep'), WAIT_MS);
  });

  it('removes only the dangling reference from a dependent that still has an owner', async () => {
    const first = await createConfigMap('two-first');
    const second = await createConfigMap('two-second');
    await createConfigMap('two-dep', [refTo(first), refTo(second)]);

    await configMaps.delete('two-first');
    await eventually(async () => expect(ownerUids(await configMaps.get('two-dep'))).toEqual([second.metadata!.uid]), WAIT_MS);
    expect((await configMaps.get('two-dep')).metadata?.deletionTimestamp).toBeUndefined();
  });

  it('keeps a foreground-deleted owner until its blocking dependents are gone; others do not block', async () => {
    const owner = await createConfigMap('fg-owner');
    await createConfigMap('fg-blocking', [refTo(owner, { blockOwnerDeletion: true })], [HOLD]);
    await createConfigMap('fg-free', [refTo(owner)]);

    await configMaps.delete('fg-owner', { propagationPolicy: 'Foreground' });
    await eventually(async () => {
      expect((await configMaps.get('fg-blocking')).metadata?.deletionTimestamp).toBeDefined();
      await expectGone(configMaps, 'fg-free');
    }, WAIT_MS);
    const waiting = await configMaps.get('fg-owner');
    expect(waiting.metadata?.finalizers).toEqual(['foregroundDeletion']);
    expect(waiting.metadata?.deletionTimestamp).toBeDefined();

    await releaseHold('fg-blocking');
    await eventually(async () => {
      await expectGone(configMaps, 'fg-blocking');
      await expectGone(configMaps, 'fg-owner');
    }, WAIT_MS);
  });

  it('lets a foreground-deleted owner go while a dependent without blockOwnerDeletion is still terminating', async () => {
    const owner = await createConfigMap('fg2-owner');
    await createConfigMap('fg2-dep', [refTo(owner, { blockOwnerDeletion: false })], [HOLD]);

    await configMaps.delete('fg2-owner', { propagationPolicy: 'Foreground' });
    await eventually(async () => {
      await expectGone(configMaps, 'fg2-owner');
      expect((await configMaps.get('fg2-dep')).metadata?.deletionTimestamp).toBeDefined();
    }, WAIT_MS);
    await releaseHold('fg2-dep');
    await eventually(() => expectGone(configMaps, 'fg2-dep'), WAIT_MS);
  });

  it('deletes dependents that have dependents of their own in the foreground, bottom up', async () => {
    const top = await createConfigMap('chain-top');
    const middle = await createConfigMap('chain-middle', [refTo(top, { blockOwnerDeletion: true })]);
    await createConfigMap('chain-bottom', [refTo(middle, { blockOwnerDeletion: true })], [HOLD]);

    await configMaps.delete('chain-top', { propagationPolicy: 'Foreground' });
    await eventually(async () => {
      expect((await configMaps.get('chain-bottom')).metadata?.deletionTimestamp).toBeDefined();
      expect((await configMaps.get('chain-middle')).metadata?.finalizers).toEqual(['foregroundDeletion']);
    }, WAIT_MS);
    expect((await configMaps.get('chain-top')).metadata?.finalizers).toEqual(['foregroundDeletion']);

    await releaseHold('chain-bottom');
    await eventually(async () => {
      for (const name of ['chain-bottom', 'chain-middle', 'chain-top']) await expectGone(configMaps, name);
    }, WAIT_MS);
  });

  it('orphans the dependents of an owner deleted with propagationPolicy Orphan, then lets the owner go', async () => {
    const owner = await createConfigMap('orphan-owner');
    const other = await createConfigMap('orphan-other');
    await createConfigMap('orphan-a', [refTo(owner, { controller: true, blockOwnerDeletion: true })]);
    await createConfigMap('orphan-b', [refTo(owner), refTo(other)]);

    await configMaps.delete('orphan-owner', { propagationPolicy: 'Orphan' });
    await eventually(() => expectGone(configMaps, 'orphan-owner'), WAIT_MS);
    expect(ownerUids(await configMaps.get('orphan-a'))).toEqual([]);
    expect(ownerUids(await configMaps.get('orphan-b'))).toEqual([other.metadata!.uid]);
    expect((await configMaps.get('orphan-a')).metadata?.deletionTimestamp).toBeUndefined();
  });

  it('orphans a dependent that shows up after its owner was deleted with Orphan (a create in flight), and deletes one whose other owner is gone', async () => {
    const owner = await createConfigMap('late-owner');
    await configMaps.delete('late-owner', { propagationPolicy: 'Orphan' });
    await eventually(() => expectGone(configMaps, 'late-owner'), WAIT_MS);
    // As a controller's create sent before it saw its owner go.
    await createConfigMap('late-dep', [refTo(owner, { controller: true, blockOwnerDeletion: true })]);
    await createConfigMap('late-dep-two', [refTo(owner), { apiVersion: 'v1', kind: 'ConfigMap', name: 'never', uid: randomUUID() }]);
    await eventually(async () => {
      expect(ownerUids(await configMaps.get('late-dep'))).toEqual([]);
      await expectGone(configMaps, 'late-dep-two');
    }, WAIT_MS);
    expect((await configMaps.get('late-dep')).metadata?.deletionTimestamp).toBeUndefined();
  });

  it('counts an owner recreated under the same name (another uid) as gone', async () => {
    const owner = await createConfigMap('reborn');
    await createConfigMap('reborn-dep', [refTo(owner)]);
    await configMaps.delete('reborn');
    const again = await createConfigMap('reborn');
    expect(again.metadata?.uid).not.toBe(owner.metadata?.uid);

    await eventually(() => expectGone(configMaps, 'reborn-dep'), WAIT_MS);
    expect((await configMaps.get('reborn')).metadata?.uid).toBe(again.metadata?.uid);
  });

  it('deletes a dependent whose owner never existed, and one whose owner has the name but not the uid', async () => {
    const namesake = await createConfigMap('namesake');
    await createConfigMap('ghost-dep', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: randomUUID() }]);
    await createConfigMap('namesake-dep', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'namesake', uid: randomUUID() }]);
    await eventually(async () => {
      await expectGone(configMaps, 'ghost-dep');
      await expectGone(configMaps, 'namesake-dep');
    }, WAIT_MS);
    expect((await configMaps.get('namesake')).metadata?.uid).toBe(namesake.metadata?.uid);
  });

  it('never deletes a dependent created right after its owner, whichever cache sees it first', async () => {
    const pairs = Array.from({ length: 10 }, (_, i) => i);
    await Promise.all(
      pairs.map(async (i) => {
        const owner = await env.client.secrets.create({ metadata: { name: `race-owner-${i}`, namespace: ns } });
        await createConfigMap(`race-dep-${i}`, [refTo({ apiVersion: 'v1', kind: 'Secret', metadata: owner.metadata })]);
      }),
    );
    // A dependent collected after the pairs were created shows the collector has been at work.
    await createConfigMap('race-sentinel', [{ apiVersion: 'v1', kind: 'Secret', name: 'nobody', uid: randomUUID() }]);
    await eventually(() => expectGone(configMaps, 'race-sentinel'), WAIT_MS);
    for (const i of pairs) expect((await configMaps.get(`race-dep-${i}`)).metadata?.deletionTimestamp).toBeUndefined();
  });

  it('leaves a cluster-scoped dependent of a namespaced kind alone and reports the invalid reference', async () => {
    const owner = await createConfigMap('ns-scoped-owner');
    await env.client.namespaces.create({ metadata: { name: 'gc-invalid-ref', ownerReferences: [refTo(owner)] } });
    const reported = async () => {
      const events = await env.client.events.listAll({ namespace: 'default' });
      const event = events.items.find((e) => e.reason === 'OwnerRefInvalidNamespace' && e.involvedObject?.name === 'gc-invalid-ref');
      expect(event?.type).toBe('Warning');
      return event?.count ?? 0;
    };
    const first = await eventually(reported, WAIT_MS);

    // The owner's deletion makes the collector look at the namespace again (the event is counted
    // again), and it still leaves it alone.
    await configMaps.delete('ns-scoped-owner');
    await eventually(async () => expect(await reported()).toBeGreaterThan(first), WAIT_MS);
    expect((await env.client.namespaces.get('gc-invalid-ref')).metadata?.deletionTimestamp).toBeUndefined();
  });

  it('collects the dependent of an owner whose type it does not watch (events), once that owner is gone', async () => {
    // Events are never monitored, as in Kubernetes: the owner's deletion reaches no cache, so the
    // dependent keeps checking on an owner it found only by asking the API server. The same holds
    // for a custom resource type between its definition and its monitor's first list.
    const events = env.client.dynamic({ group: '', version: 'v1', resource: 'events', namespaced: true, kind: 'Event' }).inNamespace(ns);
    const event = await events.create({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'unwatched-owner' },
      involvedObject: { kind: 'ConfigMap', name: 'x', namespace: ns },
      reason: 'Test',
      message: 'an owner nobody watches',
    });
    await createConfigMap('owned-by-event', [refTo({ apiVersion: 'v1', kind: 'Event', ...event })]);
    // The collector has looked at it and found its owner.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await configMaps.get('owned-by-event');
    await events.delete('unwatched-owner');
    await eventually(() => expectGone(configMaps, 'owned-by-event'), WAIT_MS);
  });

  describe('with a custom resource type created while it runs', () => {
    const crd: CustomResourceDefinition = {
      apiVersion: 'apiextensions.svc.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.gc.svc.io' },
      spec: {
        group: 'gc.svc.io',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    const widgetResource = { group: 'gc.svc.io', version: 'v1', resource: 'widgets', namespaced: true, kind: 'Widget' };

    it('collects custom resources as dependents and their dependents as owners, and stops monitoring the type when it goes', async () => {
      const crds = env.client.resource(BUILTIN_RESOURCES.customResourceDefinitions);
      await crds.create(crd);
      await eventually(async () => {
        const current = await crds.get('widgets.gc.svc.io');
        expect(current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')).toBe(true);
      }, WAIT_MS);
      const widgets = env.client.dynamic(widgetResource).inNamespace(ns);
      // Picked up on the definition's change, without waiting for the periodic rediscovery.
      await eventually(() => expect(running.manager.getControllers().find((c) => c.name === monitorName(widgetResource))?.running).toBe(true), WAIT_MS);

      const widgetOwner = {
        apiVersion: 'gc.svc.io/v1',
        kind: 'Widget',
        ...(await widgets.create({ apiVersion: 'gc.svc.io/v1', kind: 'Widget', metadata: { name: 'w-owner' } })),
      };
      await createConfigMap('w-owned', [refTo(widgetOwner)]);
      const cmOwner = await createConfigMap('w-cm-owner');
      await widgets.create({ apiVersion: 'gc.svc.io/v1', kind: 'Widget', metadata: { name: 'w-dep', ownerReferences: [refTo(cmOwner)] } });

      await widgets.delete('w-owner');
      await configMaps.delete('w-cm-owner');
      await eventually(async () => {
        await expectGone(configMaps, 'w-owned');
        await expectGone(widgets, 'w-dep');
      }, WAIT_MS);

      await crds.delete('widgets.gc.svc.io');
      const gc = running.container.get(GarbageCollector);
      await eventually(async () => {
        await gc.resync();
        expect(gc.monitorNames()).not.toContain(monitorName(widgetResource));
      }, WAIT_MS);
    });

    it('picks up a definition made between its discovery and the first list of its definitions cache', async () => {
      // Made then, the definition is in no discovery the collector has made and reaches its cache
      // as part of the first list, with no event after. Its kind must not wait for the periodic
      // rediscovery (30 s), or its objects' dependents stay unresolved that long.
      const crds = env.client.resource(BUILTIN_RESOURCES.customResourceDefinitions);
      const gadgets: CustomResourceDefinition = {
        ...crd,
        metadata: { name: 'gadgets.gc.svc.io' },
        spec: { ...crd.spec, names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' } },
      };
      const gadgetResource = { ...widgetResource, resource: 'gadgets', kind: 'Gadget' };
      const client = new ClientWithLateChange(env.clientConfig, async () => {
        await crds.create(gadgets);
        await eventually(async () => {
          const current = await crds.get('gadgets.gc.svc.io');
          expect(current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')).toBe(true);
        }, WAIT_MS);
      });
      const manager = new Manager({
        clientConfig: env.clientConfig,
        logger: { info: () => undefined, error: () => undefined },
        reconcileRecords: false,
        gracefulShutdownMs: 2_000,
      });
      const gc = new GarbageCollector(manager, client, new GarbageCollectorOptions(2));
      manager.addRunnable(gc);
      try {
        await manager.start();
        await eventually(
          () => expect(gc.monitorNames()).toEqual(expect.arrayContaining([expect.stringMatching(/^garbagecollector-customresourcedefinitions\./)])),
          WAIT_MS,
        );
        await eventually(() => {
          expect(gc.graph.resourceFor('gc.svc.io/v1', 'Gadget')).toMatchObject({ resource: 'gadgets' });
          expect(gc.monitorNames()).toContain(monitorName(gadgetResource));
        }, 5_000);
      } finally {
        await manager.stop();
        client.close();
        await crds.delete('gadgets.gc.svc.io');
      }
    });
  });
});
