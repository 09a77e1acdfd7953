import { ServerLifecycle } from './server-lifecycle';

describe('ServerLifecycle', () => {
  it('moves forward through the phases only', async () => {
    const lifecycle = new ServerLifecycle();
    const reached = lifecycle.whenReached('notAcceptingNewRequests');
    lifecycle.advance('shutdownInitiated');
    expect(lifecycle.reached('notAcceptingNewRequests')).toBe(false);
    lifecycle.advance('drained');
    await reached;
    lifecycle.advance('shutdownInitiated');
    expect(lifecycle.phase).toBe('drained');
    expect(lifecycle.longRunningStopSignal.aborted).toBe(true);
  });

  it('waits for tracked requests of a kind to finish, or gives up after the timeout', async () => {
    const lifecycle = new ServerLifecycle();
    const doneShort = lifecycle.track(false);
    const doneWatch = lifecycle.track(true);
    expect(lifecycle.inFlightDrainable).toBe(1);
    expect(lifecycle.inFlightLongRunning).toBe(1);
    const drained = lifecycle.waitForIdle('drainable', 5_000);
    doneShort();
    doneShort();
    expect(lifecycle.inFlightDrainable).toBe(0);
    await expect(drained).resolves.toBe(true);
    await expect(lifecycle.waitForIdle('longRunning', 20)).resolves.toBe(false);
    doneWatch();
    await expect(lifecycle.waitForIdle('longRunning', 20)).resolves.toBe(true);
  });

  it('runs stop hooks in order, collecting failures', async () => {
    const lifecycle = new ServerLifecycle();
    const ran: string[] = [];
    lifecycle.onStopped(() => {
      ran.push('a');
    });
    lifecycle.onStopped(() => Promise.reject(new Error('store close failed')));
    lifecycle.onStopped(async () => {
      ran.push('c');
    });
    const errors = await lifecycle.runStoppedHooks();
    expect(ran).toEqual(['a', 'c']);
    expect(errors).toEqual([new Error('store close failed')]);
    expect(await lifecycle.runStoppedHooks()).toEqual([]);
  });
});
