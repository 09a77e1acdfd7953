import type { ApiObject } from '@svc/api';
import { isStatusError } from '@svc/machinery';
import type { ResourceRegistry } from '../registry/resource-registry';

const PAGE = 500;

export interface EventExpiryOptions {
  /** The core/v1 Events registry. */
  events: ResourceRegistry;
  /** `--event-ttl`: how long an Event is kept after it was last written; 0 keeps Events for ever. */
  ttlMs: number;
  now?: () => number;
  log?: (message: string) => void;
}

function timeOf(value: unknown): number {
  const parsed = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isNaN(parsed) ? 0 : parsed;
}

/**
 * When an Event was last written, as far as the object tells: the latest of its creation, its last
 * and series times, and its managers' write times. Kubernetes counts the time to live from the last
 * write (each write renews the store lease).
 */
export function lastWrittenMs(event: ApiObject): number {
  const e = event as ApiObject & { lastTimestamp?: unknown; eventTime?: unknown; series?: { lastObservedTime?: unknown } };
  const managed = (event.metadata?.managedFields ?? []).map((m) => timeOf(m.time));
  return Math.max(timeOf(event.metadata?.creationTimestamp), timeOf(e.lastTimestamp), timeOf(e.eventTime), timeOf(e.series?.lastObservedTime), ...managed);
}

/**
 * `--event-ttl` (Kubernetes keeps Events an hour by default, by a store lease on each write): a sweep
 * that deletes the Events not written for longer than the time to live, every tenth of it (between
 * 1 s and 1 min). A delete carries the resourceVersion it saw, so an Event written meanwhile stays.
 */
export class EventExpiry {
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;
  private readonly now: () => number;

  constructor(private readonly options: EventExpiryOptions) {
    this.now = options.now ?? Date.now;
  }

  get intervalMs(): number {
    return Math.min(60_000, Math.max(1_000, Math.floor(this.options.ttlMs / 10)));
  }

  start(): void {
    if (this.options.ttlMs <= 0 || this.timer !== undefined) return;
    this.timer = setInterval(() => void this.sweepOnce(), this.intervalMs);
    this.timer.unref();
    void this.sweepOnce();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One sweep, unless one is running; resolves how many Events it deleted. */
  sweepOnce(): Promise<number> {
    this.running ??= this.sweep()
      .catch((error: unknown) => {
        this.options.log?.(`event expiry: ${String(error)}`);
        return 0;
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async sweep(): Promise<number> {
    const oldest = this.now() - this.options.ttlMs;
    let deleted = 0;
    let token: string | undefined;
    do {
      // From the watch cache: an Event a little stale there is only swept a sweep later.
      const page = await this.options.events.list('', { limit: PAGE, continue: token, ...(token ? {} : { resourceVersion: '0' }) });
      for (const event of page.items) {
        if (lastWrittenMs(event) > oldest) continue;
        const meta = event.metadata ?? {};
        try {
          await this.options.events.delete(meta.namespace ?? '', meta.name ?? '', { preconditions: { uid: meta.uid, resourceVersion: meta.resourceVersion } });
          deleted++;
        } catch (error) {
          // Gone already, or written since it was listed: the next sweep looks again.
          if (!isStatusError(error) || (error.status.code !== 404 && error.status.code !== 409)) throw error;
        }
      }
      token = page.continue;
    } while (token);
    return deleted;
  }
}
