import { errorMessage } from '@svc/machinery';
import { type HealthCheck, type HealthEndpoint, type HealthReport, healthCheck } from './health-check';
import { type CheckOutcome, formatHealthReport, formatSingleCheck } from './health-format';
import { logCheck, pingCheck } from './builtin-checks';

export interface HealthRegistryOptions {
  /** `--livez-grace-period`: how long after start `/livez` counts unfinished boot-sequence checks as passing. */
  livezGracePeriodMs?: number;
  /** Milliseconds clock, replaceable in tests. */
  now?: () => number;
}

export interface HealthQuery {
  verbose: boolean;
  exclude: string[];
}

type PostStartHook = () => void | Promise<void>;

interface PostStartState {
  hook: PostStartHook;
  done: boolean;
  error?: unknown;
  /** The hook's run, once it has started. */
  running?: Promise<void>;
}

export const SHUTDOWN_CHECK_NAME = 'shutdown';

/**
 * The named checks behind `/healthz`, `/livez` and `/readyz`. `ping` and `log` are built in; the store,
 * post-start hooks and caches register their own. Readiness ends with `shutdown`, which fails from the
 * moment the server is asked to stop.
 */
export class HealthRegistry {
  private readonly checks: Record<HealthEndpoint, HealthCheck[]> = { healthz: [], livez: [], readyz: [] };
  private readonly postStartHooks = new Map<string, PostStartState>();
  private readonly createdAt: number;
  private readonly now: () => number;
  private readonly livezGracePeriodMs: number;
  private started = false;
  private shuttingDown = false;
  private readonly shutdownCheck = healthCheck(SHUTDOWN_CHECK_NAME, () => {
    if (this.shuttingDown) throw new Error('process is shutting down');
  });

  constructor(options: HealthRegistryOptions = {}) {
    this.now = options.now ?? Date.now;
    this.livezGracePeriodMs = options.livezGracePeriodMs ?? 0;
    this.createdAt = this.now();
    this.addHealthChecks(pingCheck(), logCheck());
  }

  /** Checks for all three endpoints. */
  addHealthChecks(...checks: HealthCheck[]): void {
    this.add(['healthz', 'livez', 'readyz'], checks);
  }

  addLivezChecks(...checks: HealthCheck[]): void {
    this.add(['livez'], checks);
  }

  addReadyzChecks(...checks: HealthCheck[]): void {
    this.add(['readyz'], checks);
  }

  /**
   * Checks that only need to pass once during start-up (informer sync, post-start hooks): for `/livez`
   * they pass during the grace period whatever they say, so a slow start is not taken for a dead process.
   */
  addBootSequenceChecks(...checks: HealthCheck[]): void {
    this.add(['healthz', 'readyz'], checks);
    this.add(
      ['livez'],
      checks.map((c) =>
        healthCheck(c.name, async () => {
          if (this.now() - this.createdAt < this.livezGracePeriodMs) return;
          await c.check();
        }),
      ),
    );
  }

  /**
   * A hook run once the server listens, with a `poststarthook/<name>` check failing until it has finished.
   * A hook added after start runs at once. A failed hook keeps its check failing.
   */
  addPostStartHook(name: string, hook: PostStartHook): void {
    if (this.postStartHooks.has(name)) throw new Error(`post-start hook "${name}" is already registered`);
    const state: PostStartState = { hook, done: false };
    this.postStartHooks.set(name, state);
    this.addBootSequenceChecks(
      healthCheck(`poststarthook/${name}`, () => {
        if (state.error !== undefined) throw new Error(`post-start hook failed: ${errorMessage(state.error)}`);
        if (!state.done) throw new Error('not finished');
      }),
    );
    if (this.started) void this.runHook(state);
  }

  /** Runs the post-start hooks; resolves when all have settled, with the names of those that failed. */
  async runPostStartHooks(): Promise<{ name: string; error: unknown }[]> {
    this.started = true;
    const entries = [...this.postStartHooks.entries()].filter(([, s]) => !s.done && s.error === undefined);
    await Promise.all(entries.map(([, s]) => this.runHook(s)));
    return entries.filter(([, s]) => s.error !== undefined).map(([name, s]) => ({ name, error: s.error }));
  }

  /** From now on `/readyz` fails with `[-]shutdown failed`. */
  markShuttingDown(): void {
    this.shuttingDown = true;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  checkNames(endpoint: HealthEndpoint): string[] {
    return this.checksOf(endpoint).map((c) => c.name);
  }

  async report(endpoint: HealthEndpoint, query: HealthQuery): Promise<HealthReport> {
    const excluded = new Set(query.exclude);
    const outcomes: CheckOutcome[] = [];
    const checks = this.checksOf(endpoint);
    const results = await Promise.all(checks.map((c) => (excluded.has(c.name) ? Promise.resolve(undefined) : runCheck(c))));
    checks.forEach((c, i) => {
      if (excluded.has(c.name)) {
        excluded.delete(c.name);
        outcomes.push({ name: c.name, outcome: 'excluded' });
      } else {
        outcomes.push({ name: c.name, outcome: results[i] === undefined ? 'ok' : 'failed' });
      }
    });
    return formatHealthReport(endpoint, outcomes, query.verbose, [...excluded].sort());
  }

  /** One check of an endpoint, or undefined when it has none of that name. */
  async reportOne(endpoint: HealthEndpoint, name: string): Promise<HealthReport | undefined> {
    const check = this.checksOf(endpoint).find((c) => c.name === name);
    if (!check) return undefined;
    return formatSingleCheck(await runCheck(check));
  }

  private checksOf(endpoint: HealthEndpoint): HealthCheck[] {
    return endpoint === 'readyz' ? [...this.checks.readyz, this.shutdownCheck] : this.checks[endpoint];
  }

  private add(endpoints: HealthEndpoint[], checks: HealthCheck[]): void {
    for (const endpoint of endpoints) {
      for (const check of checks) {
        if (check.name === SHUTDOWN_CHECK_NAME || this.checks[endpoint].some((c) => c.name === check.name)) {
          throw new Error(`health check "${check.name}" is already registered for ${endpoint}`);
        }
        if (!/^[A-Za-z0-9][A-Za-z0-9/_.-]*$/.test(check.name)) {
          throw new Error(`health check name "${check.name}" must be letters, digits, '/', '_', '.' or '-'`);
        }
      }
    }
    for (const endpoint of endpoints) this.checks[endpoint].push(...checks);
  }

  /**
   * Resolves once every post-start hook that has started has settled (finished or failed), as a
   * server that has just become ready has them: an embedder (the test environment) waits on it.
   */
  async postStartHooksSettled(): Promise<void> {
    await Promise.all([...this.postStartHooks.values()].flatMap((s) => (s.running === undefined ? [] : [s.running])));
  }

  private runHook(state: PostStartState): Promise<void> {
    state.running ??= this.runHookOnce(state);
    return state.running;
  }

  private async runHookOnce(state: PostStartState): Promise<void> {
    try {
      await state.hook();
      state.done = true;
    } catch (error) {
      state.error = error instanceof Error ? error.message : error;
    }
  }
}

async function runCheck(check: HealthCheck): Promise<unknown> {
  try {
    await check.check();
    return undefined;
  } catch (error) {
    return error ?? new Error('check failed');
  }
}
