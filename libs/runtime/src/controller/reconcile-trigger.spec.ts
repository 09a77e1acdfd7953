import 'reflect-metadata';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { BUILTIN_RESOURCES } from '@svc/client';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { Reconciler } from '../decorators/reconciler.decorator';
import { createManager } from '../manager/create-manager';
import type { Manager } from '../manager/manager';
import type { Reconcile, ReconcileContext } from '../reconcile/reconcile';
import type { Request } from '../reconcile/request';
import { describeTrigger, MAX_TRIGGER_EVENTS, TriggerLog, type ReconcileTrigger } from '../reconcile/trigger';
import { eventually } from '../testing';

const exporter = new InMemorySpanExporter();
let env: TestEnvironment;
let ns = 0;
const managers: Manager[] = [];
const errors: string[] = [];
const debug: string[] = [];
const logger = { info: () => undefined, error: (message: string) => errors.push(message), debug: (message: string) => debug.push(message) };

beforeAll(async () => {
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  env = await startTestEnvironment();
});
afterAll(async () => {
  await env?.stop();
  trace.disable();
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.stop()));
  exporter.reset();
  errors.length = 0;
  debug.length = 0;
});

async function namespace(): Promise<string> {
  const name = `trig${++ns}-${Date.now() % 100000}`;
  await env.client.namespaces.create({ metadata: { name } });
  return name;
}

async function run(reconciler: new () => Reconcile): Promise<Manager> {
  const { manager } = createManager({ clientConfig: env.clientConfig, reconcilers: [reconciler] as never, logger });
  managers.push(manager);
  await manager.start();
  return manager;
}

function causes(trigger: ReconcileTrigger): string[] {
  return trigger.events.map((e) => `${e.type} ${e.kind} ${e.name} x${e.count}`);
}

describe('the causes of a reconcile', () => {
  it('lists the events that queued the key since its last reconcile began, equal ones counted', async () => {
    const space = await namespace();
    const triggers: ReconcileTrigger[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    @Reconciler({ for: BUILTIN_RESOURCES.configMaps, owns: [BUILTIN_RESOURCES.secrets], namespace: space, name: 'trigger-counter' })
    class Counter implements Reconcile {
      async reconcile(_request: Request, context: ReconcileContext): Promise<void> {
        triggers.push(context.trigger);
        if (triggers.length === 1) await gate;
      }
    }
    const manager = await run(Counter);
    const cms = env.client.configMaps.inNamespace(space);
    let owner = await cms.create({ metadata: { name: 'owner' } });
    await eventually(() => expect(triggers).toHaveLength(1));
    expect(causes(triggers[0])).toEqual(['added ConfigMap owner x1']);

    // While the first reconcile runs, three updates and an owned object queue the key again.
    for (const value of ['1', '2', '3']) owner = await cms.update({ ...owner, data: { v: value } });
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid!, controller: true };
    await env.client.secrets.inNamespace(space).create({ metadata: { name: 'owned', ownerReferences: [ref] } });
    await eventually(() => {
      expect(manager.informerFor(BUILTIN_RESOURCES.secrets, space).indexer.getByKey(`${space}/owned`)).toBeDefined();
      expect(manager.informerFor(BUILTIN_RESOURCES.configMaps, space).indexer.getByKey(`${space}/owner`)?.metadata?.resourceVersion).toBe(
        owner.metadata?.resourceVersion,
      );
    });
    release();
    await eventually(() => expect(triggers).toHaveLength(2));
    expect(causes(triggers[1])).toEqual(['updated ConfigMap owner x3', 'added Secret owned x1']);
    expect(triggers[1].total).toBe(4);
    await eventually(() =>
      expect(debug).toContain(
        `controller trigger-counter: reconciling ${space}/owner (triggered by updated ConfigMap ${space}/owner (x3), added Secret ${space}/owned)`,
      ),
    );
  });

  it('names its own retry as the cause after an error, and the error log line says what triggered it', async () => {
    const space = await namespace();
    const triggers: ReconcileTrigger[] = [];
    @Reconciler({ for: BUILTIN_RESOURCES.configMaps, namespace: space, name: 'trigger-failing' })
    class Failing implements Reconcile {
      reconcile(_request: Request, context: ReconcileContext): void {
        triggers.push(context.trigger);
        if (triggers.length === 1) throw new Error('first attempt fails');
      }
    }
    await run(Failing);
    await env.client.configMaps.inNamespace(space).create({ metadata: { name: 'c' } });
    await eventually(() => expect(triggers).toHaveLength(2));
    expect(causes(triggers[1])).toEqual(['retry ConfigMap c x1']);
    expect(errors).toContain(`controller trigger-failing: reconcile of ${space}/c (triggered by added ConfigMap ${space}/c) failed (retry 1)`);
  });

  it('records one span per reconcile with its key, causes and outcome', async () => {
    const space = await namespace();
    let calls = 0;
    @Reconciler({ for: BUILTIN_RESOURCES.configMaps, namespace: space, name: 'trigger-traced' })
    class Traced implements Reconcile {
      reconcile(): { requeueAfter: number } | void {
        calls++;
        if (calls === 1) throw new Error('boom');
        if (calls === 2) return { requeueAfter: 10 };
      }
    }
    await run(Traced);
    await env.client.configMaps.inNamespace(space).create({ metadata: { name: 'c' } });
    await eventually(() => expect(exporter.getFinishedSpans().filter((s) => s.name === 'reconcile trigger-traced')).toHaveLength(3));
    const spans = exporter.getFinishedSpans().filter((s) => s.name === 'reconcile trigger-traced');
    expect(spans.map((s) => s.attributes['svc.reconcile.result'])).toEqual(['error', 'requeue_after', 'success']);
    expect(spans[0].attributes).toMatchObject({
      'svc.controller': 'trigger-traced',
      'svc.reconcile.namespace': space,
      'svc.reconcile.name': 'c',
      'svc.reconcile.trigger.total': 1,
    });
    expect(spans[0].status).toMatchObject({ code: 2, message: 'boom' });
    expect(spans[0].events.map((e) => [e.name, e.attributes?.['svc.trigger.type']])).toEqual([
      ['trigger', 'added'],
      ['exception', undefined],
    ]);
    expect(spans.slice(1).map((s) => s.events[0].attributes?.['svc.trigger.type'])).toEqual(['retry', 'requeue-after']);
  });
});

describe('TriggerLog', () => {
  it('keeps a bounded number of distinct causes per key and counts the rest', () => {
    const log = new TriggerLog();
    for (let i = 0; i < MAX_TRIGGER_EVENTS + 5; i++) log.record('k', { type: 'updated', kind: 'Pod', namespace: 'ns', name: `p${i}` });
    log.record('k', { type: 'updated', kind: 'Pod', namespace: 'ns', name: 'p0' });
    const trigger = log.take('k');
    expect(trigger.events).toHaveLength(MAX_TRIGGER_EVENTS);
    expect(trigger.events[0].count).toBe(2);
    expect(trigger.total).toBe(MAX_TRIGGER_EVENTS + 6);
    expect(trigger.dropped).toBe(5);
    expect(describeTrigger(trigger)).toMatch(/^updated Pod ns\/p0 \(x2\), updated Pod ns\/p1, .* and 5 more$/);
    expect(log.take('k')).toEqual({ events: [], total: 0, dropped: 0 });
  });
});
