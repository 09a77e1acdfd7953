import { healthCheck } from './health-check';
import { HealthRegistry } from './health-registry';

const verbose = { verbose: true, exclude: [] };

describe('HealthRegistry', () => {
  it('starts with ping and log everywhere, and shutdown last in readyz', async () => {
    const registry = new HealthRegistry();
    expect(registry.checkNames('healthz')).toEqual(['ping', 'log']);
    expect(registry.checkNames('livez')).toEqual(['ping', 'log']);
    expect(registry.checkNames('readyz')).toEqual(['ping', 'log', 'shutdown']);
    registry.addReadyzChecks(healthCheck('store', () => undefined));
    expect(registry.checkNames('readyz')).toEqual(['ping', 'log', 'store', 'shutdown']);
    expect((await registry.report('readyz', verbose)).body).toBe('[+]ping ok\n[+]log ok\n[+]store ok\n[+]shutdown ok\nreadyz check passed\n');
  });

  it('puts health checks on all endpoints and livez/readyz checks on theirs only', () => {
    const registry = new HealthRegistry();
    registry.addHealthChecks(healthCheck('store', () => undefined));
    registry.addLivezChecks(healthCheck('alive-only', () => undefined));
    registry.addReadyzChecks(healthCheck('ready-only', () => undefined));
    expect(registry.checkNames('healthz')).toEqual(['ping', 'log', 'store']);
    expect(registry.checkNames('livez')).toEqual(['ping', 'log', 'store', 'alive-only']);
    expect(registry.checkNames('readyz')).toEqual(['ping', 'log', 'store', 'ready-only', 'shutdown']);
  });

  it('refuses a name twice on one endpoint, the reserved shutdown name, and odd characters', () => {
    const registry = new HealthRegistry();
    expect(() => registry.addHealthChecks(healthCheck('ping', () => undefined))).toThrow(/already registered/);
    expect(() => registry.addReadyzChecks(healthCheck('shutdown', () => undefined))).toThrow(/already registered/);
    expect(() => registry.addLivezChecks(healthCheck('with space', () => undefined))).toThrow(/must be/);
    expect(registry.checkNames('livez')).toEqual(['ping', 'log']);
  });

  it('reports a failing check, sync or async, with the reason withheld; excluding it passes', async () => {
    const registry = new HealthRegistry();
    registry.addReadyzChecks(
      healthCheck('sync-fail', () => {
        throw new Error('boom');
      }),
      healthCheck('async-fail', async () => Promise.reject(new Error('later'))),
    );
    const failed = await registry.report('readyz', { verbose: false, exclude: [] });
    expect(failed.status).toBe(500);
    expect(failed.body).toBe(
      '[+]ping ok\n[+]log ok\n[-]sync-fail failed: reason withheld\n[-]async-fail failed: reason withheld\n[+]shutdown ok\nreadyz check failed\n',
    );
    const excluded = await registry.report('readyz', { verbose: true, exclude: ['sync-fail', 'async-fail', 'nope'] });
    expect(excluded.status).toBe(200);
    expect(excluded.body).toContain('[+]sync-fail excluded: ok\n[+]async-fail excluded: ok\n');
    expect(excluded.body).toContain('warn: some health checks cannot be excluded: no matches for "nope"\n');
    expect(await registry.reportOne('readyz', 'async-fail')).toEqual({ status: 500, body: 'internal server error: later\n' });
    expect(await registry.reportOne('readyz', 'ping')).toEqual({ status: 200, body: 'ok' });
    expect(await registry.reportOne('livez', 'sync-fail')).toBeUndefined();
  });

  it('fails readyz, and only readyz, once shutting down', async () => {
    const registry = new HealthRegistry();
    registry.markShuttingDown();
    const readyz = await registry.report('readyz', verbose);
    expect(readyz.status).toBe(500);
    expect(readyz.body).toContain('[-]shutdown failed: reason withheld\n');
    expect((await registry.report('livez', verbose)).status).toBe(200);
    expect((await registry.report('healthz', verbose)).status).toBe(200);
    expect(await registry.reportOne('readyz', 'shutdown')).toEqual({ status: 500, body: 'internal server error: process is shutting down\n' });
  });

  it('fails a post-start hook check until the hook has run, on every endpoint after the livez grace period', async () => {
    let now = 0;
    const registry = new HealthRegistry({ livezGracePeriodMs: 1_000, now: () => now });
    let finish: () => void = () => undefined;
    registry.addPostStartHook('start-informers', () => new Promise<void>((resolve) => (finish = resolve)));
    expect(registry.checkNames('readyz')).toContain('poststarthook/start-informers');

    expect((await registry.report('readyz', verbose)).body).toContain('[-]poststarthook/start-informers failed: reason withheld');
    expect((await registry.report('healthz', verbose)).status).toBe(500);
    // Within the grace period livez trusts the unfinished hook.
    expect((await registry.report('livez', verbose)).body).toContain('[+]poststarthook/start-informers ok');
    now = 1_000;
    expect((await registry.report('livez', verbose)).status).toBe(500);

    const run = registry.runPostStartHooks();
    finish();
    expect(await run).toEqual([]);
    for (const endpoint of ['healthz', 'livez', 'readyz'] as const) {
      expect((await registry.report(endpoint, verbose)).status).toBe(200);
    }
  });

  it('keeps a failed post-start hook failing and reports it; a hook added after start runs at once', async () => {
    const registry = new HealthRegistry();
    registry.addPostStartHook('broken', () => {
      throw new Error('cannot start');
    });
    expect(await registry.runPostStartHooks()).toEqual([{ name: 'broken', error: 'cannot start' }]);
    expect(await registry.reportOne('readyz', 'poststarthook/broken')).toEqual({
      status: 500,
      body: 'internal server error: post-start hook failed: cannot start\n',
    });

    let ran = false;
    registry.addPostStartHook('late', () => {
      ran = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toBe(true);
    expect(await registry.reportOne('livez', 'poststarthook/late')).toEqual({ status: 200, body: 'ok' });
    expect(() => registry.addPostStartHook('late', () => undefined)).toThrow(/already registered/);
  });

  it('runs the checks of one report concurrently', async () => {
    const registry = new HealthRegistry();
    const slow = (name: string) => healthCheck(name, () => new Promise<void>((resolve) => setTimeout(resolve, 100)));
    registry.addReadyzChecks(slow('a'), slow('b'), slow('c'));
    const started = Date.now();
    await registry.report('readyz', verbose);
    expect(Date.now() - started).toBeLessThan(250);
  });
});
