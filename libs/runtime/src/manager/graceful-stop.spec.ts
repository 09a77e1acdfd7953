import 'reflect-metadata';
import { BUILTIN_RESOURCES } from '@svc/client';
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
});
