import { namespacedNameKey } from '@svc/informers';
import type { MetaObject } from '../helpers/object-shape';

/** client-go's ExpectationsTimeout: after this, a controller acts again even if it never saw its own writes. */
export const EXPECTATIONS_TIMEOUT_MS = 5 * 60_000;

interface Expected {
  creations: number;
  /** Keys (`namespace/name`) of the objects whose deletion is awaited. */
  deletions: Set<string>;
  atMs: number;
}

/**
 * The creations and deletions of owned objects a controller asked for and has not yet seen in its
 * caches, per reconcile key (client-go's ControllerExpectations, deletions tracked by object as in
 * its UIDTrackingControllerExpectations). A reconcile raises them before it writes, so a write in
 * flight, or one whose answer never came, is covered too; the controller lowers them as its owned
 * informer shows the objects come and go, and the reconcile lowers them for writes that failed.
 * Until they are met, or {@link EXPECTATIONS_TIMEOUT_MS} passes, the reconcile should not act on
 * that key's owned objects again: its cache may not show what it already did.
 */
export class Expectations {
  private readonly byKey = new Map<string, Expected>();

  constructor(
    private readonly now: () => number = Date.now,
    readonly timeoutMs = EXPECTATIONS_TIMEOUT_MS,
  ) {}

  /** From now on, `count` creations are awaited for `key` (replacing whatever was awaited). */
  expectCreations(key: string, count: number): void {
    this.byKey.set(key, { creations: count, deletions: new Set(), atMs: this.now() });
  }

  /** From now on, the deletion of each of `objects` is awaited for `key` (replacing whatever was awaited). */
  expectDeletions(key: string, objects: readonly MetaObject[]): void {
    this.byKey.set(key, { creations: 0, deletions: new Set(objects.map(keyOf)), atMs: this.now() });
  }

  /** One awaited creation happened, or will never happen (a create that failed). */
  creationObserved(key: string): void {
    const expected = this.byKey.get(key);
    if (expected) expected.creations--;
  }

  /** The object is gone or going, or its deletion failed: no longer awaited. */
  deletionObserved(key: string, object: MetaObject): void {
    this.byKey.get(key)?.deletions.delete(keyOf(object));
  }

  /** True when nothing is awaited for `key`, or what was has been seen, or it was raised too long ago. */
  satisfied(key: string): boolean {
    const expected = this.byKey.get(key);
    if (!expected) return true;
    if (expected.creations <= 0 && expected.deletions.size === 0) return true;
    return this.now() - expected.atMs >= this.timeoutMs;
  }

  /** While unsatisfied, how long until the expectations of `key` lapse; undefined when satisfied. */
  expiresInMs(key: string): number | undefined {
    if (this.satisfied(key)) return undefined;
    return Math.max(0, this.byKey.get(key)!.atMs + this.timeoutMs - this.now());
  }

  /** Drops what is awaited for `key` (its object is gone). */
  forget(key: string): void {
    this.byKey.delete(key);
  }

  get size(): number {
    return this.byKey.size;
  }
}

/**
 * The expectations of one reconcile key, as a reconcile sees them (`ReconcileContext.expectations`).
 * The controller lowers them from its owned informers; the reconcile raises them and lowers them for
 * its failed writes.
 */
export class KeyExpectations {
  constructor(
    private readonly expectations: Expectations,
    readonly key: string,
  ) {}

  expectCreations(count: number): void {
    this.expectations.expectCreations(this.key, count);
  }

  expectDeletions(objects: readonly MetaObject[]): void {
    this.expectations.expectDeletions(this.key, objects);
  }

  creationObserved(): void {
    this.expectations.creationObserved(this.key);
  }

  deletionObserved(object: MetaObject): void {
    this.expectations.deletionObserved(this.key, object);
  }

  satisfied(): boolean {
    return this.expectations.satisfied(this.key);
  }

  expiresInMs(): number | undefined {
    return this.expectations.expiresInMs(this.key);
  }
}

function keyOf(object: MetaObject): string {
  return namespacedNameKey(object.metadata?.namespace, object.metadata?.name ?? '');
}
