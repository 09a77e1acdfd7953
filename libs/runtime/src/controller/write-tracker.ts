import { isRevisionAtLeast } from '@svc/informers';

/**
 * The resourceVersion of the latest write this process made to each object, so that the next
 * reconcile of that object can wait for the cache to catch up (read-your-writes).
 */
export class WriteTracker {
  private readonly versions = new Map<string, string>();

  static entryKey(resourceId: string, objectKey: string): string {
    return `${resourceId}|${objectKey}`;
  }

  record(resourceId: string, objectKey: string, resourceVersion: string | undefined): void {
    if (!resourceVersion) return;
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
