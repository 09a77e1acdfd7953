import { randomBytes } from 'node:crypto';
import type { Event, Service } from '@svc/api';
import type { ServiceProblem } from '../model/service-port';

/** Where Events go: `client.events` of `@svc/client`, or a stand-in in unit tests. */
export interface EventCreator {
  create(event: Event, options: { namespace: string }): Promise<unknown>;
}

const MAX_REMEMBERED = 10_000;

/**
 * Warning Events on Services the proxy cannot program in full. Each problem is reported once per
 * Service (by uid) while it lasts: a sync every second must not write an Event every second. A
 * problem that goes away and comes back is reported again. Writing is best effort: a failed write
 * is logged and tried again on a later sync.
 */
export class ServiceEvents {
  private readonly reported = new Map<string, Set<string>>();

  constructor(
    private readonly sink: EventCreator,
    private readonly component: string,
    private readonly host: string,
    private readonly log: (line: string) => void,
  ) {}

  /** Reports what is new in `problems` for `service` and forgets what is gone. */
  async report(service: Service, problems: readonly ServiceProblem[]): Promise<void> {
    const uid = service.metadata?.uid ?? `${service.metadata?.namespace}/${service.metadata?.name}`;
    const before = this.reported.get(uid) ?? new Set<string>();
    const now = new Set<string>();
    for (const problem of problems) {
      const key = `${problem.reason}\n${problem.message}`;
      if (now.has(key)) continue;
      now.add(key);
      if (before.has(key)) continue;
      const ok = await this.write(service, problem);
      if (!ok) now.delete(key);
    }
    if (now.size === 0) this.reported.delete(uid);
    else {
      this.reported.delete(uid);
      this.reported.set(uid, now);
      if (this.reported.size > MAX_REMEMBERED) this.reported.delete(this.reported.keys().next().value as string);
    }
  }

  /** Forgets a deleted Service. */
  forget(service: Service): void {
    this.reported.delete(service.metadata?.uid ?? `${service.metadata?.namespace}/${service.metadata?.name}`);
  }

  private async write(service: Service, problem: ServiceProblem): Promise<boolean> {
    const namespace = service.metadata?.namespace ?? 'default';
    const name = service.metadata?.name ?? 'unknown';
    const now = new Date().toISOString();
    this.log(`Service ${namespace}/${name}: ${problem.reason}: ${problem.message}`);
    try {
      await this.sink.create(
        {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name: `${name}.${Date.now().toString(16)}${randomBytes(3).toString('hex')}`, namespace },
          involvedObject: {
            apiVersion: 'v1',
            kind: 'Service',
            namespace,
            name,
            uid: service.metadata?.uid,
            resourceVersion: service.metadata?.resourceVersion,
          },
          type: 'Warning',
          reason: problem.reason,
          message: problem.message,
          count: 1,
          firstTimestamp: now,
          lastTimestamp: now,
          source: { component: this.component, host: this.host },
          reportingComponent: this.component,
          reportingInstance: this.host,
        },
        { namespace },
      );
      return true;
    } catch (error) {
      this.log(`could not record an Event on Service ${namespace}/${name}: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
  }
}
