import 'reflect-metadata';
import type { ConfigMap } from '@svc/api';
import type { ResourceClient } from '@svc/client';
import { StatusError } from '@svc/machinery';
import { createManager, installCustomResources, type Manager } from '@svc/runtime';
import { eventually } from '@svc/runtime/testing';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { greetings, greetingType, type Greeting } from './greeting';
import { GREETING_LABEL, GreetingReconciler } from './greeting-reconciler';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const silent = { info: () => undefined, error: () => undefined };
const namespace = 'default';

let env: TestEnvironment;
let manager: Manager;
let greetingClient: ResourceClient<Greeting>;
let configMaps: ResourceClient<ConfigMap>;

async function messages(name: string): Promise<Record<string, string | undefined>> {
  const list = await configMaps.listAll({ namespace, labelSelector: `${GREETING_LABEL}=${name}` });
  return Object.fromEntries(list.items.map((cm) => [cm.metadata!.name!, cm.data?.message]));
}

beforeAll(async () => {
  env = await startTestEnvironment();
  await installCustomResources(env.client, [greetingType], 10_000);
  greetingClient = env.client.resource(greetings).inNamespace(namespace);
  configMaps = env.client.configMaps;
  ({ manager } = createManager({ clientConfig: env.clientConfig, reconcilers: [GreetingReconciler], logger: silent }));
  await manager.start();
});

afterAll(async () => {
  await manager?.stop();
  await env?.stop();
});

describe('the Greeting operator', () => {
  it('ships crd.yaml as greeting.ts defines the type', () => {
    expect(parse(readFileSync(join(__dirname, 'crd.yaml'), 'utf8'))).toEqual(greetingType.crd());
  });

  it('keeps spec.copies owned ConfigMaps saying spec.message, and reports them in status', async () => {
    const created = await greetingClient.create({ metadata: { name: 'hello' }, spec: { message: 'Hello', copies: 2 } });

    await eventually(async () => expect(await messages('hello')).toEqual({ 'hello-1': 'Hello', 'hello-2': 'Hello' }));
    const cm = await configMaps.get('hello-1', { namespace });
    expect(cm.metadata?.ownerReferences).toEqual([
      { apiVersion: 'demo.svc.io/v1', kind: 'Greeting', name: 'hello', uid: created.metadata!.uid, controller: true, blockOwnerDeletion: true },
    ]);
    await eventually(async () => expect((await greetingClient.get('hello')).status).toEqual({ observedGeneration: 1, configMaps: 2 }));

    await greetingClient.patch('hello', { spec: { message: 'Bonjour', copies: 3 } }, 'merge');
    await eventually(async () => expect(await messages('hello')).toEqual({ 'hello-1': 'Bonjour', 'hello-2': 'Bonjour', 'hello-3': 'Bonjour' }));
    await eventually(async () => expect((await greetingClient.get('hello')).status).toEqual({ observedGeneration: 2, configMaps: 3 }));

    await greetingClient.patch('hello', { spec: { copies: 1 } }, 'merge');
    await eventually(async () => expect(await messages('hello')).toEqual({ 'hello-1': 'Bonjour' }));
    await eventually(async () => expect((await greetingClient.get('hello')).status).toEqual({ observedGeneration: 3, configMaps: 1 }));

    const events = await env.client.events.listAll({ namespace });
    expect(events.items.some((e) => e.involvedObject?.name === 'hello' && e.reason === 'Synced')).toBe(true);
  });

  it('recreates an owned ConfigMap deleted by hand, and puts back one edited by hand', async () => {
    await greetingClient.create({ metadata: { name: 'again' }, spec: { message: 'Hi', copies: 2 } });
    await eventually(async () => expect(await messages('again')).toEqual({ 'again-1': 'Hi', 'again-2': 'Hi' }));
    const before = await configMaps.get('again-2', { namespace });

    await configMaps.delete('again-2', { namespace });
    await eventually(async () => {
      const recreated = await configMaps.get('again-2', { namespace });
      expect(recreated.metadata?.uid).not.toBe(before.metadata?.uid);
      expect(recreated.data).toEqual({ message: 'Hi' });
    });

    await configMaps.patch('again-1', { data: { message: 'tampered' } }, 'merge', { namespace });
    await eventually(async () => expect(await messages('again')).toEqual({ 'again-1': 'Hi', 'again-2': 'Hi' }));
  });

  it('stops on a ConfigMap of someone else in the way (a terminal error, not retried) and goes on once it is gone', async () => {
    await configMaps.create({ metadata: { name: 'taken-2', namespace }, data: { owner: 'someone else' } });
    await greetingClient.create({ metadata: { name: 'taken' }, spec: { message: 'Hi', copies: 2 } });
    await eventually(async () => {
      const events = await env.client.events.listAll({ namespace });
      expect(events.items.some((e) => e.involvedObject?.name === 'taken' && e.reason === 'NameTaken')).toBe(true);
    });
    expect(await messages('taken')).toEqual({ 'taken-1': 'Hi' });
    expect((await configMaps.get('taken-2', { namespace })).data).toEqual({ owner: 'someone else' });
    const terminalErrors = async () =>
      (await manager.registry.getSingleMetric('controller_runtime_terminal_reconcile_errors_total')!.get()).values.find(
        (v) => v.labels.controller === 'GreetingReconciler',
      )?.value ?? 0;
    // Once per wake-up (its creation, the copy it made), never in a retry loop (whose backoff,
    // 5 ms doubling, would count about seven more in a second).
    await eventually(async () => expect(await terminalErrors()).toBeGreaterThanOrEqual(1));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const counted = await terminalErrors();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await terminalErrors()).toBe(counted);
    expect(counted).toBeLessThanOrEqual(2);

    // The watch of ConfigMaps by name wakes the Greeting when the one in the way goes.
    await configMaps.delete('taken-2', { namespace });
    await eventually(async () => expect(await messages('taken')).toEqual({ 'taken-1': 'Hi', 'taken-2': 'Hi' }));
  });

  it('is defaulted and validated by the CRD schema, the same machinery as a built-in kind', async () => {
    const unknownField = { message: 'Hey', colour: 'blue' } as Greeting['spec'];
    const defaulted = await greetingClient.create({ metadata: { name: 'one' }, spec: unknownField });
    expect(defaulted.spec).toEqual({ message: 'Hey', copies: 1 });
    await eventually(async () => expect(await messages('one')).toEqual({ 'one-1': 'Hey' }));

    const tooMany = await greetingClient.create({ metadata: { name: 'many' }, spec: { message: 'Hey', copies: 9 } }).catch((error: unknown) => error);
    expect(tooMany).toBeInstanceOf(StatusError);
    expect((tooMany as StatusError).status).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(JSON.stringify((tooMany as StatusError).status.details)).toContain('spec.copies');

    const noMessage = await greetingClient.create({ metadata: { name: 'mute' }, spec: {} as Greeting['spec'] }).catch((error: unknown) => error);
    expect((noMessage as StatusError).status).toMatchObject({ code: 422, reason: 'Invalid' });
  });
});
