import type { ClientDuplexStream } from '@grpc/grpc-js';
import { StorageError } from '../storage-error';
import type { EtcdClient } from './etcd-client';
import { grpcFailure } from './etcd-client';
import { headerRevision, int64Number, type EtcdWatchEvent, type WatchRequest, type WatchResponse } from './etcd-protocol';

/** Every key of the cluster: etcd reads a key and range end of `\0` as "all keys". */
export const ALL_KEYS = Buffer.from([0]);

/** The events of one or more whole revisions, as etcd delivered them (fragments joined). */
export interface EventBatch {
  events: EtcdWatchEvent[];
  /** The revision of the last event. */
  revision: number;
}

export type WatchStreamOutcome =
  { kind: 'batch'; batch: EventBatch } | { kind: 'compacted'; compactRevision: number } | { kind: 'failed'; error: StorageError; endpoint: number };

/**
 * One etcd watch on one gRPC stream, over the WHOLE key space from a start revision, with previous
 * values. Why the whole key space: etcd gives every write (every revision) at least one event, so a
 * watch of every key sees every revision, and "I have seen revision R" means "every change up to R
 * has been delivered" for any prefix. Progress notifications cannot give that on the etcd this
 * project is tested with (3.4.23): a requested one may overtake events still in flight (etcd issue
 * 15220, fixed in 3.4.24) and one for a new watcher may never come (17507, fixed in 3.4.31).
 *
 * Responses are pulled one batch at a time (`next()`); the gRPC stream is paused while a batch
 * waits to be taken, so a slow consumer holds back etcd (HTTP/2 flow control), not memory.
 */
export class EtcdWatchStream {
  private stream: ClientDuplexStream<WatchRequest, WatchResponse> | undefined;
  private readonly endpointIndex: number;
  private readonly pending: WatchStreamOutcome[] = [];
  private waiting: ((outcome: WatchStreamOutcome) => void) | undefined;
  private fragments: EtcdWatchEvent[] = [];
  private ended = false;

  constructor(client: EtcdClient, startRevision: number) {
    const { stream, index } = client.openWatch();
    this.stream = stream;
    this.endpointIndex = index;
    stream.on('data', (response: WatchResponse) => this.onResponse(response));
    stream.on('error', (error: unknown) => this.onFailure(error));
    stream.on('end', () => this.onFailure(new StorageError('Unavailable', 'the etcd watch stream ended')));
    stream.write({
      create_request: { key: ALL_KEYS, range_end: ALL_KEYS, start_revision: startRevision, prev_kv: true, fragment: true },
    });
  }

  /** The next batch or terminal outcome; after a terminal one the stream is closed. */
  next(): Promise<WatchStreamOutcome> {
    const queued = this.poll();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.ended) return Promise.resolve(this.closedOutcome());
    return new Promise((resolve) => (this.waiting = resolve));
  }

  /** A batch already received, without waiting; undefined when none is queued. */
  poll(): WatchStreamOutcome | undefined {
    const queued = this.pending.shift();
    if (queued !== undefined && this.pending.length === 0 && !this.ended) this.stream?.resume();
    return queued;
  }

  close(): void {
    if (this.ended) return;
    this.ended = true;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.(this.closedOutcome());
    const stream = this.stream;
    this.stream = undefined;
    stream?.removeAllListeners('data');
    // Errors after close (the cancellation itself) are expected.
    stream?.on('error', () => undefined);
    stream?.cancel();
  }

  private closedOutcome(): WatchStreamOutcome {
    return { kind: 'failed', error: StorageError.closed(), endpoint: this.endpointIndex };
  }

  private onResponse(response: WatchResponse): void {
    if (this.ended) return;
    if (response.canceled) {
      const compactRevision = int64Number(response.compact_revision);
      if (compactRevision > 0) this.finish({ kind: 'compacted', compactRevision });
      else
        this.finish({
          kind: 'failed',
          error: new StorageError('Unavailable', `etcd canceled the watch: ${response.cancel_reason || 'no reason given'}`),
          endpoint: this.endpointIndex,
        });
      return;
    }
    const events = response.events ?? [];
    if (response.fragment) {
      for (const event of events) this.fragments.push(event);
      return;
    }
    let all = events;
    if (this.fragments.length > 0) {
      all = this.fragments.concat(events);
      this.fragments = [];
    }
    if (all.length === 0) return; // created, or a progress notification: nothing to deliver
    const revision = int64Number(all[all.length - 1].kv?.mod_revision) || headerRevision(response.header);
    this.deliver({ kind: 'batch', batch: { events: all, revision } });
  }

  private onFailure(error: unknown): void {
    if (this.ended) return;
    const f = grpcFailure(error);
    const message = f === undefined ? String((error as Error)?.message ?? error) : f.details;
    this.finish({
      kind: 'failed',
      error: error instanceof StorageError ? error : new StorageError('Unavailable', `etcd watch failed: ${message}`),
      endpoint: this.endpointIndex,
    });
  }

  private finish(outcome: WatchStreamOutcome): void {
    this.deliver(outcome);
    this.close();
  }

  private deliver(outcome: WatchStreamOutcome): void {
    const waiting = this.waiting;
    if (waiting !== undefined) {
      this.waiting = undefined;
      waiting(outcome);
      return;
    }
    this.pending.push(outcome);
    this.stream?.pause();
  }
}
