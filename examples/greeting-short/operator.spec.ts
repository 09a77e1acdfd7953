import 'reflect-metadata';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { createManager, type Manager } from '@svc/runtime';
import { eventually } from '@svc/runtime/testing';
import { GreetingReconciler, greetingType } from './operator';

let env: TestEnvironment;
let manager: Manager;
beforeAll(async () => {
  env = await startTestEnvironment();
  ({ manager } = createManager({
    clientConfig: env.clientConfig,
    reconcilers: [GreetingReconciler],
    resources: [greetingType],
    logger: { info: () => undefined, error: () => undefined },
  }));
  await manager.start();
});
afterAll(async () => {
  await manager?.stop();
  await env?.stop();
});

it('keeps spec.copies owned ConfigMaps saying spec.message, and counts them in status', async () => {
  const greetings = env.client.resource(greetingType.resource).inNamespace('default');
  const messages = async () =>
    Object.fromEntries(
      (await env.client.configMaps.list({ namespace: 'default' })).items
        .filter((cm) => cm.metadata?.name?.startsWith('hi-'))
        .map((cm) => [cm.metadata!.name!, cm.data?.message]),
    );
  const created = await greetings.create({ metadata: { name: 'hi' }, spec: { message: 'Hello', copies: 3 } });
  await eventually(async () => expect(await messages()).toEqual({ 'hi-1': 'Hello', 'hi-2': 'Hello', 'hi-3': 'Hello' }), 10_000);
  // The operator writes the status meanwhile: an update from a stale read conflicts, so read again and retry.
  await eventually(async () => greetings.update({ ...(await greetings.get('hi')), spec: { message: 'Bye', copies: 1 } }), 10_000);
  await eventually(async () => expect(await messages()).toEqual({ 'hi-1': 'Bye' }), 10_000);
  await eventually(async () => expect((await greetings.get('hi')).status).toEqual({ configMaps: 1 }), 10_000);
  expect(created.spec.copies).toBe(3);
});
