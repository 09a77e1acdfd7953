import { StorageError } from '../storage-error';
import type { EtcdClient } from './etcd-client';
import { EtcdWatchStream, type EventBatch } from './etcd-watch-stream';

export interface EtcdFeedHandlers {
  /** A batch of whole revisions, in order; the cursor already stands at its last revision. */
  onBatch(batch: EventBatch): void;
  /**
   * The feed could not resume where it was: etcd compacted the revisions it had not seen yet. It
   * goes on from the current revision; whoever relied on it has missed changes.
   */
  onLost(error: StorageError): void;
}

const RETRY_INITIAL_MS = 50;
const RETRY_MAX_MS = 2_000;

/**
 * The store's one live view of its etcd cluster: a watch of every key (see EtcdWatchStream for why)
 * that is re-opened from the next revision on another member when its stream fails. `cursor` is the
 * revision up to which every change of the cluster has been handed to `onBatch`.
 */
export class EtcdFeed {
  cursor: number;
  private stream: EtcdWatchStream | undefined;
  private closed = false;
  private running: Promise<void> | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly client: EtcdClient,
    startRevision: number,
    private readonly handlers: EtcdFeedHandlers,
    private readonly currentRevision: () => Promise<number>,
  ) {
    this.cursor = startRevision;
  }

  start(): void {
    this.running ??= this.run();
  }

  /** Resolves once the cursor has reached `revision`, or after `timeoutMs` (or on close) whatever it reached. */
  waitFor(revision: number, timeoutMs: number): Promise<void> {
    if (this.cursor >= revision || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.listeners.delete(check);
        resolve();
      };
      const check = (): void => {
        if (this.cursor >= revision || this.closed) done();
      };
      const timer = setTimeout(done, timeoutMs);
      this.listeners.add(check);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stream?.close();
    for (const listener of [...this.listeners]) listener();
    await this.running;
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.closed) {
      let stream: EtcdWatchStream;
      try {
        stream = new EtcdWatchStream(this.client, this.cursor + 1);
      } catch {
        return; // the client is closed
      }
      this.stream = stream;
      for (;;) {
        const outcome = await stream.next();
        if (this.closed) return;
        if (outcome.kind === 'batch') {
          failures = 0;
          this.cursor = outcome.batch.revision;
          this.handlers.onBatch(outcome.batch);
          for (const listener of [...this.listeners]) listener();
          continue;
        }
        if (outcome.kind === 'compacted') {
          const lostAt = this.cursor;
          this.cursor = await this.currentRevision().catch(() => outcome.compactRevision - 1);
          this.handlers.onLost(StorageError.expired(lostAt, outcome.compactRevision));
        } else {
          this.client.failedOver(outcome.endpoint);
          failures++;
          await new Promise((resolve) => setTimeout(resolve, Math.min(RETRY_MAX_MS, RETRY_INITIAL_MS * 2 ** Math.min(failures - 1, 10))));
        }
        break;
      }
    }
  }
}
