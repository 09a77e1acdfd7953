import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Lease } from '@svc/api';
import { BUILTIN_RESOURCES, type Client, type ResourceClient } from '@svc/client';
import { isNotFound } from '@svc/machinery';
import { validateLeaderElectionConfig, type LeaderElectionConfig } from './leader-election-options';

export interface LeaderCallbacks {
  /** Leadership gained: start working. */
  onStartedLeading(): void | Promise<void>;
  /** Leadership lost or given up: stop working now; the lease may be taken by another soon. */
  onStoppedLeading(): void | Promise<void>;
  /** Someone (maybe this process) holds the lease now. */
  onNewLeader?(identity: string): void;
}

export interface LeaderElectorLogger {
  info(message: string): void;
  error(message: string, error?: unknown): void;
}

/** client-go's default identity shape: `<hostname>_<uuid>`. */
export function defaultLeaderIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

function toMicroTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * Lease-based leader election (client-go's LeaderElector over a LeaseLock). Writes use the
 * object's resourceVersion, so two candidates racing for one lease cannot both win. A standby
 * judges expiry by when it last saw the lease change on its own clock, not by the holder's
 * renewTime, so clock skew between processes does not matter.
 */
export class LeaderElector {
  readonly identity: string;
  private readonly leases: ResourceClient<Lease>;
  private readonly config: LeaderElectionConfig;
  private observed: { record: string; atMs: number; lease?: Lease } | undefined;
  private leading = false;
  private stopped = false;
  private running: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private readonly abort = new AbortController();
  private lastRenewMs = 0;
  private currentLeader = '';

  constructor(
    client: Client,
    config: LeaderElectionConfig,
    private readonly callbacks: LeaderCallbacks,
    options: { identity?: string; logger?: LeaderElectorLogger } = {},
  ) {
    validateLeaderElectionConfig(config);
    this.config = config;
    this.identity = options.identity ?? defaultLeaderIdentity();
    this.leases = client.resource(BUILTIN_RESOURCES.leases).inNamespace(config.resourceNamespace);
    this.logger = options.logger ?? { info: () => undefined, error: (m, e) => console.error(m, e instanceof Error ? e.message : '') };
  }

  private readonly logger: LeaderElectorLogger;

  isLeader(): boolean {
    return this.leading;
  }

  /** The holder last seen, `''` if none. */
  leader(): string {
    return this.currentLeader;
  }

  /** Runs until stop: acquire, lead while renewals succeed, and after a loss try to acquire again. */
  start(): void {
    this.running ??= this.run();
  }

  /**
   * Stops campaigning. A leader first stops leading (its callback is awaited), then, when
   * `release` is true (the default), clears the lease's holder so that a standby takes over on its
   * next retry instead of waiting out the lease. `release: false` leaves the lease to expire, as a
   * crash would.
   */
  async stop(release = true): Promise<void> {
    if (this.stopped) return this.running;
    this.stopped = true;
    this.abort.abort();
    this.wake?.();
    await this.running;
    if (this.leading) {
      this.leading = false;
      await this.callbacks.onStoppedLeading();
      if (release) await this.release();
    }
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      // Acquire.
      while (!this.stopped && !(await this.tryAcquireOrRenew())) await this.sleep(this.jittered(this.config.retryPeriodMs));
      if (this.stopped) return;
      this.leading = true;
      this.lastRenewMs = Date.now();
      this.logger.info(`leader election: ${this.identity} acquired lease ${this.config.resourceNamespace}/${this.config.resourceName}`);
      await this.callbacks.onStartedLeading();
      // Renew until the deadline passes without a successful renewal.
      while (!this.stopped) {
        await this.sleep(this.config.retryPeriodMs);
        if (this.stopped) return;
        const ok = await this.tryAcquireOrRenew(this.lastRenewMs + this.config.renewDeadlineMs - Date.now());
        if (ok) {
          this.lastRenewMs = Date.now();
          continue;
        }
        if (Date.now() - this.lastRenewMs >= this.config.renewDeadlineMs - this.config.retryPeriodMs) {
          // The next attempt could only land after the deadline: give up now, before the lease can
          // expire on the standbys' clocks.
          this.leading = false;
          this.logger.error(`leader election: ${this.identity} failed to renew lease ${this.config.resourceNamespace}/${this.config.resourceName}; stopping`);
          await this.callbacks.onStoppedLeading();
          break;
        }
      }
    }
  }

  /** One attempt; false when someone else holds an unexpired lease or the write lost a race. */
  private async tryAcquireOrRenew(timeoutMs?: number): Promise<boolean> {
    const signal = timeoutMs !== undefined ? AbortSignal.any([this.abort.signal, AbortSignal.timeout(Math.max(1, timeoutMs))]) : this.abort.signal;
    const now = Date.now();
    const durationSeconds = Math.max(1, Math.ceil(this.config.leaseDurationMs / 1000));
    try {
      let lease: Lease;
      try {
        lease = await this.leases.get(this.config.resourceName, { signal });
      } catch (error) {
        if (!isNotFound(error)) throw error;
        const created = await this.leases.create(
          {
            metadata: { name: this.config.resourceName, namespace: this.config.resourceNamespace },
            spec: {
              holderIdentity: this.identity,
              leaseDurationSeconds: durationSeconds,
              acquireTime: toMicroTime(now),
              renewTime: toMicroTime(now),
              leaseTransitions: 0,
            },
          },
          { signal },
        );
        this.observe(created, now);
        return true;
      }
      this.observe(lease, now);
      const holder = lease.spec?.holderIdentity ?? '';
      const observedAt = this.observed?.atMs ?? now;
      if (holder !== '' && holder !== this.identity && observedAt + this.config.leaseDurationMs > now) return false;
      const spec = lease.spec ?? {};
      const takingOver = holder !== this.identity;
      const updated = await this.leases.update(
        {
          ...lease,
          spec: {
            ...spec,
            holderIdentity: this.identity,
            leaseDurationSeconds: durationSeconds,
            acquireTime: takingOver ? toMicroTime(now) : spec.acquireTime,
            renewTime: toMicroTime(now),
            leaseTransitions: takingOver ? (spec.leaseTransitions ?? 0) + 1 : (spec.leaseTransitions ?? 0),
          },
        },
        { signal },
      );
      this.observe(updated, now);
      return true;
    } catch (error) {
      if (!this.stopped) this.logger.error(`leader election: attempt on ${this.config.resourceNamespace}/${this.config.resourceName} failed`, error);
      return false;
    }
  }

  /**
   * A courtesy to the standby, which otherwise waits out the lease: bounded by one retry period, so that
   * an unreachable API server cannot hold a stopping process (`docker stop` kills after 10 s).
   */
  private async release(): Promise<void> {
    const lease = this.observed?.lease;
    if (!lease || lease.spec?.holderIdentity !== this.identity) return;
    try {
      await this.leases.update(
        { ...lease, spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: toMicroTime(Date.now()) } },
        { signal: AbortSignal.timeout(this.config.retryPeriodMs) },
      );
      this.logger.info(`leader election: ${this.identity} released lease ${this.config.resourceNamespace}/${this.config.resourceName}`);
    } catch (error) {
      // Someone else already moved the lease on; nothing of ours to release.
      this.logger.error('leader election: release failed', error);
    }
  }

  private observe(lease: Lease, now: number): void {
    const record = JSON.stringify(lease.spec ?? {});
    if (this.observed?.record !== record) this.observed = { record, atMs: now, lease };
    else this.observed.lease = lease;
    const holder = lease.spec?.holderIdentity ?? '';
    if (holder !== this.currentLeader) {
      this.currentLeader = holder;
      if (holder) this.callbacks.onNewLeader?.(holder);
    }
  }

  private jittered(ms: number): number {
    return ms * (1 + Math.random() * 0.2);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}
