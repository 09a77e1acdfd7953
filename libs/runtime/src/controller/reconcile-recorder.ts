import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Event } from '@svc/api';
import { BUILTIN_RESOURCES, type Client, type ResourceClient } from '@svc/client';
import { isNamespaceTerminating } from '@svc/machinery';
import type { Request } from '../reconcile/request';
import type { ReconcileTrigger } from '../reconcile/trigger';
import { describeTrigger } from '../reconcile/trigger';

/** The label every reconcile record carries: the controller that reconciled. */
export const RECONCILE_CONTROLLER_LABEL = 'reconcile.svc.io/controller';
/** The annotation holding the record itself, as JSON ({@link ReconcileRecord}). */
export const RECONCILE_RECORD_ANNOTATION = 'reconcile.svc.io/record';

/** One write a reconcile made, as the API server answered it. */
export interface ReconcileWrite {
  /** create, update, patch, apply, delete, and their status and subresource forms. */
  verb: string;
  /** `<group>/<version>` or `<version>` for the core group. */
  apiVersion: string;
  resource: string;
  kind?: string;
  namespace?: string;
  name: string;
  /** The version the write made; absent for a delete answered with a Status. */
  resourceVersion?: string;
}

export type ReconcileRecordResult = 'success' | 'requeue' | 'requeue_after' | 'error' | 'terminal_error';

/** What one reconcile did, as published in its Event's `reconcile.svc.io/record` annotation. */
export interface ReconcileRecord {
  controller: string;
  /** The reconciled object's key. */
  namespace?: string;
  name: string;
  /** Start of the reconcile (RFC 3339 with microseconds). */
  startTime: string;
  durationMs: number;
  result: ReconcileRecordResult;
  /** For `requeue_after`: how long until the next reconcile. */
  requeueAfterMs?: number;
  error?: string;
  trigger: ReconcileTrigger;
  writes: ReconcileWrite[];
  /** Writes left out past {@link MAX_RECORDED_WRITES}. */
  writesDropped?: number;
  /** Reconciles of this controller not published since the last record (over its rate). */
  unrecordedBefore?: number;
}

export interface ReconcileRecorderOptions {
  controller: string;
  /** The reconciled kind's `apiVersion` and `kind`, for the Events' `involvedObject`. */
  apiVersion: string;
  kind: string;
  /** `reportingInstance`: this process. The host name by default. */
  instance?: string;
  /** Records published per second, on average; the rest are counted in the next. Default 5. */
  ratePerSecond?: number;
  /** Records published at once after a quiet period. Default 20. */
  burst?: number;
  /** Called when a record cannot be written; recording never fails a reconcile. */
  onError?: (error: unknown) => void;
}

/** Writes listed per record; a reconcile that made more says how many it left out. */
export const MAX_RECORDED_WRITES = 32;
/** Records waiting to be written; past that they are counted as unrecorded. */
const MAX_PENDING = 64;
const MAX_ERROR_LENGTH = 512;
const MAX_MESSAGE_LENGTH = 1024;

/**
 * Publishes each reconcile of a controller as an Event about the reconciled object, through the API
 * like every other write (so the console, `kubectl get events` and `kubectl describe` show them with
 * nothing private in between): reason `Reconciled`, `ReconcileRequeued` or `ReconcileFailed`, a
 * one-line message (trigger, duration, writes), the controller as the `reconcile.svc.io/controller`
 * label and reporting component, and the whole record as JSON in the `reconcile.svc.io/record`
 * annotation. Events expire on their own (the server's `--event-ttl`) and their writers already have
 * the right to create them. Publishing is bounded: a token bucket per controller, one write at a time,
 * a short queue; what is left out is counted in the next record, never waited for.
 */
export class ReconcileRecorder {
  private readonly events: ResourceClient<Event>;
  private readonly instance: string;
  private readonly rate: number;
  private readonly burst: number;
  private tokens: number;
  private refilledAt = Date.now();
  private unrecorded = 0;
  private readonly pending: Event[] = [];
  private writing = false;
  private readonly label: string;

  constructor(
    client: Client,
    private readonly options: ReconcileRecorderOptions,
  ) {
    this.events = client.resource(BUILTIN_RESOURCES.events);
    this.instance = options.instance ?? hostname();
    this.rate = options.ratePerSecond ?? 5;
    this.burst = options.burst ?? 20;
    this.tokens = this.burst;
    this.label = labelValue(options.controller);
  }

  /** Queues the record of one reconcile; returns at once. */
  record(request: Request, record: Omit<ReconcileRecord, 'controller' | 'namespace' | 'name' | 'unrecordedBefore'>, uid?: string): void {
    if (!this.take() || this.pending.length >= MAX_PENDING) {
      this.unrecorded++;
      return;
    }
    const full: ReconcileRecord = { controller: this.options.controller, namespace: request.namespace, name: request.name, ...record };
    if (this.unrecorded > 0) full.unrecordedBefore = this.unrecorded;
    this.unrecorded = 0;
    this.pending.push(this.eventOf(full, uid));
    void this.drain();
  }

  /** Resolves once every queued record has been written or has failed. */
  async flush(): Promise<void> {
    while (this.writing || this.pending.length > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  private take(): boolean {
    const now = Date.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.refilledAt) / 1000) * this.rate);
    this.refilledAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  private async drain(): Promise<void> {
    if (this.writing) return;
    this.writing = true;
    try {
      for (let event = this.pending.shift(); event !== undefined; event = this.pending.shift()) {
        try {
          await this.events.create(event);
        } catch (error) {
          // An Event for an object whose namespace is going away goes with it, as Kubernetes' broadcaster drops it.
          if (!isNamespaceTerminating(error)) this.options.onError?.(error);
        }
      }
    } finally {
      this.writing = false;
    }
  }

  private eventOf(record: ReconcileRecord, uid: string | undefined): Event {
    const failed = record.result === 'error' || record.result === 'terminal_error';
    const reason = failed ? 'ReconcileFailed' : record.result === 'success' ? 'Reconciled' : 'ReconcileRequeued';
    const now = new Date().toISOString();
    const name = `${record.name}.${Date.now().toString(16)}${randomBytes(3).toString('hex')}`.slice(-253).replace(/^[.-]+/, '');
    return {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {
        name,
        // Events about cluster-scoped objects live in default, as Kubernetes' recorders put them.
        namespace: record.namespace || 'default',
        labels: { [RECONCILE_CONTROLLER_LABEL]: this.label },
        annotations: { [RECONCILE_RECORD_ANNOTATION]: JSON.stringify(record) },
      },
      involvedObject: {
        apiVersion: this.options.apiVersion,
        kind: this.options.kind,
        name: record.name,
        ...(record.namespace ? { namespace: record.namespace } : {}),
        ...(uid ? { uid } : {}),
      },
      type: failed ? 'Warning' : 'Normal',
      reason,
      action: 'Reconcile',
      message: summary(record).slice(0, MAX_MESSAGE_LENGTH),
      count: 1,
      firstTimestamp: now,
      lastTimestamp: now,
      source: { component: this.options.controller, host: this.instance },
      reportingComponent: this.options.controller,
      reportingInstance: this.instance,
    };
  }
}

/** The error of a failed reconcile as a record holds it. */
export function recordedError(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH)}...` : text;
}

/** `reconciled in 12ms, triggered by updated Pod ns/a (x3); wrote 2: patch ReplicaSet ns/r, ...` */
function summary(record: ReconcileRecord): string {
  const outcome =
    record.result === 'success'
      ? 'reconciled'
      : record.result === 'requeue'
        ? 'reconciled, requeued'
        : record.result === 'requeue_after'
          ? `reconciled, requeued after ${record.requeueAfterMs ?? 0}ms`
          : `failed${record.result === 'terminal_error' ? ' (terminal)' : ''}: ${record.error ?? ''}`;
  const writes =
    record.writes.length === 0
      ? 'no writes'
      : `wrote ${record.writes.length + (record.writesDropped ?? 0)}: ${record.writes
          .slice(0, 4)
          .map((w) => `${w.verb} ${w.kind ?? w.resource} ${w.namespace ? `${w.namespace}/` : ''}${w.name}`)
          .join(', ')}${record.writes.length > 4 ? ', ...' : ''}`;
  return `${outcome} in ${record.durationMs}ms, triggered by ${describeTrigger(record.trigger)}; ${writes}`;
}

/** A controller name as a label value: at most 63 characters of [A-Za-z0-9._-], alphanumeric at both ends. */
function labelValue(name: string): string {
  return name
    .replace(/[^A-Za-z0-9._-]/g, '-')
    .slice(0, 63)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
}
