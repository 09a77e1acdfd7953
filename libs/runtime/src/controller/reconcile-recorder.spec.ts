import 'reflect-metadata';
import { BUILTIN_RESOURCES } from '@svc/client';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { Reconciler } from '../decorators/reconciler.decorator';
import { createManager } from '../manager/create-manager';
import type { Manager, ManagerOptions } from '../manager/manager';
import type { Reconcile, ReconcileContext } from '../reconcile/reconcile';
import type { Request, Result } from '../reconcile/request';
import { eventually } from '../testing';
import { RECONCILE_CONTROLLER_LABEL, RECONCILE_RECORD_ANNOTATION, type ReconcileRecord } from './reconcile-recorder';

let env: TestEnvironment;
let ns = 0;
const managers: Manager[] = [];
const logger = { info: () => undefined, error: () => undefined };

beforeAll(async () => {
  env = await startTestEnvironment();
});
afterAll(async () => {
  await env?.stop();
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.stop()));
});

async function namespace(): Promise<string> {
  const name = `rec${++ns}-${Date.now() % 100000}`;
  await env.client.namespaces.create({ metadata: { name } });
  return name;
}

async function run(reconciler: new () => Reconcile, options: Partial<ManagerOptions> = {}): Promise<Manager> {
  const { manager } = createManager({ clientConfig: env.clientConfig, reconcilers: [reconciler] as never, logger, ...options });
  managers.push(manager);
  await manager.start();
  return manager;
}

async function records(namespace: string, controller: string): Promise<Array<{ event: any; record: ReconcileRecord }>> {
  const list = await env.client.events.list({ namespace, labelSelector: `${RECONCILE_CONTROLLER_LABEL}=${controller}` });
  return list.items
    .map((event) => ({ event, record: JSON.parse(event.metadata!.annotations![RECONCILE_RECORD_ANNOTATION]) as ReconcileRecord }))
    .sort((a, b) => a.record.startTime.localeCompare(b.record.startTime));
}

describe('reconcile records', () => {
  it('publishes each reconcile as an Event about the object: trigger, duration, result, requeue and the writes it made', async () => {
    const space = await namespace();
    @Reconciler({ for: BUILTIN_RESOURCES.configMaps, namespace: space, name: 'recorded-writer' })
    class Writer implements Reconcile {
      async reconcile(request: Request, { client }: ReconcileContext): Promise<Result> {
        await client.secrets.apply(
          { apiVersion: 'v1', kind: 'Secret', metadata: { name: `${request.name}-copy`, namespace: space } },
          { fieldManager: 'writer', force: true },
        );
        return { requeueAfter: 60_000 };
      }
    }
    await run(Writer);
    const cm = await env.client.configMaps.inNamespace(space).create({ metadata: { name: 'source' } });
    await eventually(async () => expect(await records(space, 'recorded-writer')).toHaveLength(1), 10_000);
    const [{ event, record }] = await records(space, 'recorded-writer');
    expect(event.reason).toBe('ReconcileRequeued');
    expect(event.type).toBe('Normal');
    expect(event.action).toBe('Reconcile');
    expect(event.reportingComponent).toBe('recorded-writer');
    expect(event.involvedObject).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', namespace: space, name: 'source', uid: cm.metadata!.uid });
    expect(record).toMatchObject({ controller: 'recorded-writer', namespace: space, name: 'source', result: 'requeue_after', requeueAfterMs: 60_000 });
    expect(record.trigger.events).toEqual([{ type: 'added', kind: 'ConfigMap', namespace: space, name: 'source', count: 1 }]);
    expect(record.durationMs).toBeGreaterThan(0);
    expect(record.writes).toEqual([
      expect.objectContaining({
        verb: 'apply',
        apiVersion: 'v1',
        resource: 'secrets',
        namespace: space,
        name: 'source-copy',
        resourceVersion: expect.any(String),
      }),
    ]);
    expect(event.message).toMatch(
      /^reconciled, requeued after 60000ms in [\d.]+ms, triggered by added ConfigMap .*\/source; wrote 1: apply Secret .*\/source-copy$/,
    );
  });

  it('publishes a failure as a Warning with its error, and no more than the rate allows', async () => {
    const space = await namespace();
    let calls = 0;
    @Reconciler({ for: BUILTIN_RESOURCES.configMaps, namespace: space, name: 'recorded-failer' })
    class Failer implements Reconcile {
      async reconcile(): Promise<void> {
        calls++;
        throw new Error('<b>nope</b>');
      }
    }
    // One record at once and almost none after: every retry past the first is counted, not written.
    await run(Failer, { reconcileRecords: { burst: 1, ratePerSecond: 0.0001 }, rateLimiter: undefined });
    await env.client.configMaps.inNamespace(space).create({ metadata: { name: 'bad' } });
    await eventually(async () => expect(await records(space, 'recorded-failer')).toHaveLength(1), 10_000);
    const seen = calls;
    await eventually(() => expect(calls).toBeGreaterThanOrEqual(seen + 1), 20_000);
    const found = await records(space, 'recorded-failer');
    expect(found).toHaveLength(1);
    expect(found[0].event).toMatchObject({ type: 'Warning', reason: 'ReconcileFailed' });
    expect(found[0].record).toMatchObject({ result: 'error', error: '<b>nope</b>', writes: [] });
  });

  it('publishes nothing when turned off', async () => {
    const space = await namespace();
    let calls = 0;
    @Reconciler({ for: BUILTIN_RESOURCES.configMaps, namespace: space, name: 'unrecorded' })
    class Quiet implements Reconcile {
      reconcile(): void {
        calls++;
      }
    }
    await run(Quiet, { reconcileRecords: false });
    await env.client.configMaps.inNamespace(space).create({ metadata: { name: 'x' } });
    await eventually(() => expect(calls).toBe(1));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await records(space, 'unrecorded')).toHaveLength(0);
  });
});
