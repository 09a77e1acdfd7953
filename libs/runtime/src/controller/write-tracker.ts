import { AsyncLocalStorage } from 'node:async_hooks';
import { isRevisionAtLeast } from '@svc/informers';
import type { ReconcileWrite } from './reconcile-recorder';

/** One write: the object (by resource and key) and the resourceVersion the server answered with. */
export interface TrackedWrite {
  resourceId: string;
  objectKey: string;
  resourceVersion: string;
}

/** What the writes made in one reconcile's asynchronous scope belong to. */
export interface WriteScope {
  /** Every write of the scope, appended as its answer comes, whatever resource it touches. */
  writes: TrackedWrite[];
  /** Withdraws the scope's writes not yet sent (`RestRequest.withdraw`): a stopped reconcile can write no more. */
  signal?: AbortSignal;
  /** The scope's writes sent or waiting to be, until they are answered or withdrawn. */
  inFlight?: Set<Promise<unknown>>;
  /** Every answered write of the scope as its reconcile record lists it (deletions answered with a Status too). */
  made?: ReconcileWrite[];
}

/**
 * The resourceVersion of the latest write this process made to each object, so that the next
 * reconcile of that object can wait for the cache to catch up (read-your-writes).
 */
export class WriteTracker {
  private readonly versions = new Map<string, string>();
  private readonly scope = new AsyncLocalStorage<WriteScope>();
  /** Resources some controller reconciles (its `for`): only their writes are waited for, so only they are kept. */
  private readonly interesting = new Set<string>();

  /** Keeps the latest write of each object of `resourceId` from now on. */
  track(resourceId: string): void {
    this.interesting.add(resourceId);
  }

  /**
   * Runs `fn` in `scope`: every write made (through the tracking client) in its asynchronous scope
   * is appended to `scope.writes`, even if it throws, and is withdrawn once `scope.signal` aborts
   * unless already sent.
   */
  collect<R>(scope: WriteScope, fn: () => Promise<R>): Promise<R> {
    return this.scope.run(scope, fn);
  }

  /** The scope of the code running now, if any. */
  current(): WriteScope | undefined {
    return this.scope.getStore();
  }

  static entryKey(resourceId: string, objectKey: string): string {
    return `${resourceId}|${objectKey}`;
  }

  record(resourceId: string, objectKey: string, resourceVersion: string | undefined): void {
    if (!resourceVersion) return;
    this.scope.getStore()?.writes.push({ resourceId, objectKey, resourceVersion });
    if (!this.interesting.has(resourceId)) return;
    const key = WriteTracker.entryKey(resourceId, objectKey);
    const current = this.versions.get(key);
    if (current === undefined || isRevisionAtLeast(resourceVersion, current)) this.versions.set(key, resourceVersion);
  }

  get(resourceId: string, objectKey: string): string | undefined {
    return this.versions.get(WriteTracker.entryKey(resourceId, objectKey));
  }

  /** Forgets the write once the cache has it, unless a newer one came meanwhile. */
  settle(resourceId: string, objectKey: string, resourceVersion: string): void {
    const key = WriteTracker.entryKey(resourceId, objectKey);
    if (this.versions.get(key) === resourceVersion) this.versions.delete(key);
  }

  get size(): number {
    return this.versions.size;
  }
}
