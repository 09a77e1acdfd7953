import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Event } from '@svc/api';
import { BUILTIN_RESOURCES, type Client, type ResourceClient } from '@svc/client';
import { isNamespaceTerminating } from '@svc/machinery';
import type { MetaObject } from './object-shape';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorderOptions {
  /** `source.component` and `reportingComponent`, e.g. the controller's name. */
  component: string;
  host?: string;
  /** Called when an event cannot be written; events never fail the caller. */
  onError?: (error: unknown) => void;
}

interface Aggregate {
  name: string;
  namespace: string;
  count: number;
  firstTimestamp: string;
}

// Repeats are folded into one Event for this long, as client-go's correlator keeps its cache.
const AGGREGATE_TTL_MS = 10 * 60_000;
const MAX_AGGREGATES = 4096;

/**
 * Records core v1 Events about objects. The same (object, type, reason, message) seen again is
 * counted on the Event already written (count and lastTimestamp patched) instead of a new Event.
 * Writing is best effort: failures go to `onError`, never to the caller.
 */
export class EventRecorder {
  private readonly events: ResourceClient<Event>;
  private readonly aggregates = new Map<string, Aggregate & { at: number }>();
  private readonly host: string;

  constructor(
    client: Client,
    private readonly options: EventRecorderOptions,
  ) {
    this.events = client.resource(BUILTIN_RESOURCES.events);
    this.host = options.host ?? hostname();
  }

  /** Writes (or counts) the event; resolves to the Event stored, or undefined when writing failed. */
  async event(obj: MetaObject, type: EventType, reason: string, message: string): Promise<Event | undefined> {
    const namespace = obj.metadata?.namespace || 'default';
    const now = new Date().toISOString();
    const key = JSON.stringify([obj.apiVersion, obj.kind, namespace, obj.metadata?.name, obj.metadata?.uid, type, reason, message]);
    const seen = this.aggregates.get(key);
    try {
      if (seen && Date.now() - seen.at < AGGREGATE_TTL_MS) {
        const count = seen.count + 1;
        const patched = await this.events.patch(seen.name, { count, lastTimestamp: now }, 'merge', { namespace: seen.namespace });
        this.remember(key, { ...seen, count });
        return patched;
      }
      const created = await this.events.create({
        metadata: { name: `${obj.metadata?.name ?? 'unknown'}.${Date.now().toString(16)}${randomBytes(2).toString('hex')}`, namespace },
        involvedObject: {
          apiVersion: obj.apiVersion,
          kind: obj.kind,
          name: obj.metadata?.name,
          namespace: obj.metadata?.namespace,
          uid: obj.metadata?.uid,
          resourceVersion: obj.metadata?.resourceVersion,
        },
        type,
        reason,
        message,
        count: 1,
        firstTimestamp: now,
        lastTimestamp: now,
        source: { component: this.options.component, host: this.host },
        reportingComponent: this.options.component,
        reportingInstance: this.host,
      });
      this.remember(key, { name: created.metadata!.name!, namespace, count: 1, firstTimestamp: now });
      return created;
    } catch (error) {
      // A counted Event that was deleted meanwhile starts over next time.
      this.aggregates.delete(key);
      // An Event in a namespace being deleted goes with it: Kubernetes' broadcaster drops it without a word.
      if (!isNamespaceTerminating(error)) this.options.onError?.(error);
      return undefined;
    }
  }

  normal(obj: MetaObject, reason: string, message: string): Promise<Event | undefined> {
    return this.event(obj, 'Normal', reason, message);
  }

  warning(obj: MetaObject, reason: string, message: string): Promise<Event | undefined> {
    return this.event(obj, 'Warning', reason, message);
  }

  private remember(key: string, aggregate: Aggregate): void {
    this.aggregates.delete(key);
    this.aggregates.set(key, { ...aggregate, at: Date.now() });
    if (this.aggregates.size > MAX_AGGREGATES) this.aggregates.delete(this.aggregates.keys().next().value as string);
  }
}
