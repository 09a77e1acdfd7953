/**
 * Why a key was queued: what happened to which object. `added`, `updated` and `deleted` come from an
 * informer; `resync` from the start of a term (every cached object is queued once); `requeue`,
 * `requeue-after` and `retry` from the key's own last reconcile (its result, or an error).
 */
export type TriggerType = 'added' | 'updated' | 'deleted' | 'resync' | 'requeue' | 'requeue-after' | 'retry';

/** One cause of a reconcile; equal causes queued while the key waited are counted, not repeated. */
export interface TriggerEvent {
  type: TriggerType;
  /** The kind of the object the event is about (the reconciled kind for the key's own causes). */
  kind: string;
  namespace?: string;
  name: string;
  /** How many times this cause was queued before the reconcile took the key. */
  count: number;
}

/** The causes of one reconcile: the events that queued its key since the key's last reconcile began. */
export interface ReconcileTrigger {
  /** Distinct causes, oldest first, at most `MAX_TRIGGER_EVENTS`. */
  events: readonly TriggerEvent[];
  /** Every cause counted, repeated and dropped ones included; above 1 the queue coalesced them. */
  total: number;
  /** Distinct causes beyond `MAX_TRIGGER_EVENTS`, counted in `total` but not listed. */
  dropped: number;
}

/** The distinct causes kept per key: a key queued by many objects keeps the first ones and a count. */
export const MAX_TRIGGER_EVENTS = 16;

const NO_TRIGGER: ReconcileTrigger = Object.freeze({ events: Object.freeze([]), total: 0, dropped: 0 });

interface Pending {
  events: Map<string, TriggerEvent>;
  total: number;
  dropped: number;
}

/** The causes queued per key and not yet taken by a reconcile. */
export class TriggerLog {
  private readonly pending = new Map<string, Pending>();

  record(key: string, event: Omit<TriggerEvent, 'count'>): void {
    let entry = this.pending.get(key);
    if (!entry) this.pending.set(key, (entry = { events: new Map(), total: 0, dropped: 0 }));
    entry.total++;
    const id = `${event.type}\u0000${event.kind}\u0000${event.namespace ?? ''}\u0000${event.name}`;
    const known = entry.events.get(id);
    if (known) known.count++;
    else if (entry.events.size < MAX_TRIGGER_EVENTS) entry.events.set(id, { ...event, count: 1 });
    else entry.dropped++;
  }

  /** The causes of `key` so far, forgotten here: later ones belong to its next reconcile. */
  take(key: string): ReconcileTrigger {
    const entry = this.pending.get(key);
    if (!entry) return NO_TRIGGER;
    this.pending.delete(key);
    return { events: [...entry.events.values()], total: entry.total, dropped: entry.dropped };
  }

  clear(): void {
    this.pending.clear();
  }
}

/** One line for logs: `updated Pod ns/a (x3), added ReplicaSet ns/b, and 2 more`. */
export function describeTrigger(trigger: ReconcileTrigger): string {
  if (trigger.total === 0) return 'no recorded cause';
  const parts = trigger.events.map((e) => {
    const name = e.namespace ? `${e.namespace}/${e.name}` : e.name;
    return `${e.type} ${e.kind} ${name}${e.count > 1 ? ` (x${e.count})` : ''}`;
  });
  if (trigger.dropped > 0) parts.push(`and ${trigger.dropped} more`);
  return parts.join(', ');
}
