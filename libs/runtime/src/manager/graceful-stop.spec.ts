import 'reflect-metadata';
import { BUILTIN_RESOURCES, isWithdrawn } from '@svc/client';
import { Reconciler } from '../decorators/reconciler.decorator';
import type { Reconcile, ReconcileContext } from '../reconcile/reconcile';
import type { Request } from '../reconcile/request';
import { eventually } from '../testing';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { Manager } from './manager';

const silent = { info: () => undefined, error: () => undefined };
let env: TestEnvironment;
beforeAll(async () => {
  env = await startTestEnvironment();
  await env.client.namespaces.create({ metadata: { name: 'grace' } });
});
afterAll(async () => {
  await env?.stop();
});

describe('graceful stop', () => {
  it('stops taking work, finishes reconciles in flight, and aborts those past the grace period', async () => {
    const started: string[] = [];
    const finished: string[] = [];
    let aborted = false;
    @Reconciler({ for: BUILTIN_RESOURCES.configMaps, namespace: 'grace', concurrency: 2 })
    class Slow implements Reconcile {
      async reconcile(request: Request, context: ReconcileContext): Promise<void> {
        started.push(request.name);
        const ms = request.name === 'stuck' ? 5_000 : 300;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms);
          context.signal.addEventListener('abort', () => {
            aborted = true;
            clearTimeout(timer);
            resolve();
          });
        });
        finished.push(request.name);
      }
    }
    const cms = env.client.configMaps.inNamespace('grace');
    await cms.create({ metadata: { name: 'quick' } });
    await cms.create({ metadata: { name: 'stuck' } });
    const manager = new Manager({ clientConfig: env.clientConfig, logger: silent, gracefulShutdownMs: 600 });
    manager.add(new Slow());
    await manager.start();
    await eventually(() => expect(started.sort()).toEqual(['quick', 'stuck']));
    const stopping = Date.now();
    await manager.stop();
    const took = Date.now() - stopping;
    // The short one finished within the grace period; the stuck one was told to give up at its end.
    expect(finished).toContain('quick');
    expect(aborted).toBe(true);
    expect(took).toBeGreaterThanOrEqual(550);
    expect(took).toBeLessThan(2_000);
    // No new work after stop.
    await cms.create({ metadata: { name: 'late' } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(started).not.toContain('late');
  });

  it('cancels a reconcile that ignores its signal: it can write no more, and its writes are settled before stop returns', async () => {
    await env.client.namespaces.create({ metadata: { name: 'cut' } });
    let answered = 0;
    const failures: unknown[] = [];
    let done = false;
    @Reconciler({ for: BUILTIN_RESOURCES.configMaps, namespace: 'cut', name: 'writer' })
    class Writer implements Reconcile {
      async reconcile(_request: Request, { client }: ReconcileContext): Promise<void> {
        // Ignores its signal; every create waits for a token of a slow client.
        for (let i = 0; i < 40; i++) {
          try {
            await client.secrets.create({ metadata: { generateName: 'w-' } }, { namespace: 'cut' });
            answered++;
          } catch (error) {
            failures.push(error);
          }
        }
        done = true;
      }
    }
    await env.client.configMaps.inNamespace('cut').create({ metadata: { name: 'go' } });
    const manager = new Manager({ clientConfig: { ...env.clientConfig, qps: 5, burst: 1 }, logger: silent, gracefulShutdownMs: 500 });
    manager.add(new Writer());
    await manager.start();
    await eventually(() => expect(answered).toBeGreaterThan(0));
    await manager.stop();
    const secrets = async () => (await env.client.secrets.list({ namespace: 'cut' })).items.length;
    // Every write that took effect was answered before stop returned; the rest were withdrawn unsent.
    const atStop = await secrets();
    expect(atStop).toBe(answered);
    await eventually(() => expect(done).toBe(true));
    expect(failures.length).toBe(40 - answered);
    expect(failures.every(isWithdrawn)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await secrets()).toBe(atStop);
  });
});
