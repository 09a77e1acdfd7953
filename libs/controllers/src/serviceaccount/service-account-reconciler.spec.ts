import 'reflect-metadata';
import { isNotFound } from '@svc/machinery';
import { eventually } from '@svc/runtime/testing';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { startControllers, type RunningControllers } from '../testing/start-controllers';
import { serviceAccountController } from '.';

let env: TestEnvironment;
let running: RunningControllers;

beforeAll(async () => {
  env = await startTestEnvironment();
  running = await startControllers(env, [serviceAccountController]);
}, 60_000);

afterAll(async () => {
  await running?.stop();
  await env?.stop();
});

describe('the serviceaccount controller', () => {
  it('gives every namespace a default ServiceAccount, and makes it again when deleted', async () => {
    await env.client.namespaces.create({ metadata: { name: 'accounts' } });
    await eventually(async () => expect((await env.client.serviceAccounts.get('default', { namespace: 'accounts' })).metadata?.name).toBe('default'), 10_000);
    // The namespaces that existed before the controller started have theirs too.
    await eventually(async () => expect((await env.client.serviceAccounts.get('default', { namespace: 'default' })).metadata?.uid).toBeDefined(), 10_000);

    const first = await env.client.serviceAccounts.get('default', { namespace: 'accounts' });
    await env.client.serviceAccounts.delete('default', { namespace: 'accounts' });
    await eventually(async () => {
      const again = await env.client.serviceAccounts.get('default', { namespace: 'accounts' });
      expect(again.metadata?.uid).not.toBe(first.metadata?.uid);
    }, 10_000);
  }, 30_000);

  it('makes none in a namespace that is terminating', async () => {
    await env.client.namespaces.create({ metadata: { name: 'leaving' } });
    await eventually(async () => expect((await env.client.serviceAccounts.get('default', { namespace: 'leaving' })).metadata?.name).toBe('default'), 10_000);
    // The namespace controller does not run here: the namespace stays Terminating with its content.
    await env.client.namespaces.delete('leaving');
    await env.client.serviceAccounts.delete('default', { namespace: 'leaving' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const error: unknown = await env.client.serviceAccounts.get('default', { namespace: 'leaving' }).catch((e: unknown) => e);
    expect(isNotFound(error)).toBe(true);
  }, 30_000);
});
