import { setMaxListeners } from 'node:events';

/**
 * The stages of a graceful stop, in order, as Kubernetes' lifecycle signals name them:
 * `ShutdownInitiated` (readyz fails), `NotAcceptingNewRequest` (after the shutdown delay: listener closed,
 * new requests refused), `InFlightRequestsDrained`, then `Stopped`.
 */
export type LifecyclePhase = 'running' | 'shutdownInitiated' | 'notAcceptingNewRequests' | 'drained' | 'stopped';

const ORDER: LifecyclePhase[] = ['running', 'shutdownInitiated', 'notAcceptingNewRequests', 'drained', 'stopped'];

/** Tracks the stop sequence and the requests it must wait for. */
export class ServerLifecycle {
  private current: LifecyclePhase = 'running';
  private drainable = 0;
  private longRunning = 0;
  private readonly waiters: { phase: LifecyclePhase; resolve: () => void }[] = [];
  private idleWaiters: { kind: 'drainable' | 'longRunning'; resolve: () => void }[] = [];
  // Every open watch listens on this signal: no listener limit applies.
  private readonly longRunningStop = withoutListenerLimit(new AbortController());
  private readonly stoppedHooks: (() => void | Promise<void>)[] = [];

  get phase(): LifecyclePhase {
    return this.current;
  }

  /** Aborted when long-running requests (watches) should end their streams because the server stops. */
  get longRunningStopSignal(): AbortSignal {
    return this.longRunningStop.signal;
  }

  get inFlightDrainable(): number {
    return this.drainable;
  }

  get inFlightLongRunning(): number {
    return this.longRunning;
  }

  /** True once the phase is `phase` or later. */
  reached(phase: LifecyclePhase): boolean {
    return ORDER.indexOf(this.current) >= ORDER.indexOf(phase);
  }

  advance(phase: LifecyclePhase): void {
    if (ORDER.indexOf(phase) <= ORDER.indexOf(this.current)) return;
    this.current = phase;
    if (phase === 'drained') this.longRunningStop.abort(new Error('the server is shutting down'));
    for (const waiter of this.waiters.filter((w) => this.reached(w.phase))) waiter.resolve();
    this.waiters.splice(0, this.waiters.length, ...this.waiters.filter((w) => !this.reached(w.phase)));
  }

  whenReached(phase: LifecyclePhase): Promise<void> {
    if (this.reached(phase)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ phase, resolve }));
  }

  /**
   * Work to do once the server no longer serves anything (close the store, flush), awaited by the stop
   * sequence before it reports `stopped`.
   */
  onStopped(hook: () => void | Promise<void>): void {
    this.stoppedHooks.push(hook);
  }

  /** Runs the onStopped hooks in registration order; a failing hook does not keep the others from running. */
  async runStoppedHooks(): Promise<unknown[]> {
    const errors: unknown[] = [];
    for (const hook of this.stoppedHooks.splice(0)) {
      try {
        await hook();
      } catch (error) {
        errors.push(error);
      }
    }
    return errors;
  }

  /** Counts a request until the returned function is called (once). */
  track(longRunning: boolean): () => void {
    const kind = longRunning ? 'longRunning' : 'drainable';
    if (longRunning) this.longRunning++;
    else this.drainable++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (longRunning) this.longRunning--;
      else this.drainable--;
      this.notifyIdle(kind);
    };
  }

  /** Resolves when no request of the kind is in flight, or after timeoutMs; true when idle was reached. */
  waitForIdle(kind: 'drainable' | 'longRunning', timeoutMs: number): Promise<boolean> {
    if (this.count(kind) === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.idleWaiters = this.idleWaiters.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs);
      timer.unref();
      const waiter = {
        kind,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      this.idleWaiters.push(waiter);
    });
  }

  private count(kind: 'drainable' | 'longRunning'): number {
    return kind === 'drainable' ? this.drainable : this.longRunning;
  }

  private notifyIdle(kind: 'drainable' | 'longRunning'): void {
    if (this.count(kind) !== 0) return;
    const ready = this.idleWaiters.filter((w) => w.kind === kind);
    this.idleWaiters = this.idleWaiters.filter((w) => w.kind !== kind);
    for (const waiter of ready) waiter.resolve();
  }
}

function withoutListenerLimit(controller: AbortController): AbortController {
  setMaxListeners(0, controller.signal);
  return controller;
}
