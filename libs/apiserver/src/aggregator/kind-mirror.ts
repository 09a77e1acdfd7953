import { storedNamespace, type ApiObject } from '@svc/api';
import type { ResourceRegistry } from '../registry/resource-registry';
import type { ResourceWatch } from '../registry/types';
import { INITIAL_EVENTS_END_ANNOTATION } from '../watchcache';

const RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;

/** What changed: the object as it is now (undefined once deleted) and as it was (undefined when new). */
export type MirrorListener<T extends ApiObject> = (now: T | undefined, before: T | undefined) => void;

function keyOf(object: ApiObject): string {
  return `${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
}

/**
 * The objects of one kind as the server's own watch (from its watch cache) delivers them, kept in
 * memory for the server's controllers, as an informer keeps them for a controller: the full state at
 * each (re)start replaces what was known, and every change after it is told to the listeners.
 */
export class KindMirror<T extends ApiObject> {
  private readonly objects = new Map<string, T>();
  private readonly listeners: Array<MirrorListener<T>> = [];
  private watch: ResourceWatch | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private synced = false;
  private syncWaiters: Array<() => void> = [];

  constructor(private readonly registry: () => ResourceRegistry<T> | undefined) {}

  get hasSynced(): boolean {
    return this.synced;
  }

  onChange(listener: MirrorListener<T>): void {
    this.listeners.push(listener);
  }

  /** By namespace as a client names it: Kubernetes' `kube-system` is kept as `svc-system`, and either finds it. */
  get(namespace: string, name: string): T | undefined {
    return this.objects.get(`${storedNamespace(namespace)}/${name}`);
  }

  list(): T[] {
    return [...this.objects.values()];
  }

  start(): void {
    void this.follow(0);
  }

  whenSynced(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.watch?.stop();
  }

  private async follow(failures: number): Promise<void> {
    if (this.stopped) return;
    const registry = this.registry();
    let live = false;
    if (registry === undefined) {
      // Not served: there is nothing to follow, and nothing is known.
      this.replace([]);
    } else {
      try {
        const watch = await registry.watch('', { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true });
        this.watch = watch;
        if (this.stopped) watch.stop();
        live = await this.consume(watch);
      } catch {
        // Followed again below.
      }
    }
    if (this.stopped) return;
    const next = live ? 0 : failures + 1;
    this.timer = setTimeout(() => void this.follow(next), registry === undefined ? MAX_RETRY_MS : Math.min(MAX_RETRY_MS, RETRY_MS * 2 ** Math.min(next, 5)));
    this.timer.unref();
  }

  private async consume(watch: ResourceWatch): Promise<boolean> {
    const initial: T[] = [];
    let live = false;
    try {
      for await (const event of watch) {
        if (this.stopped || event.type === 'ERROR') break;
        const object = event.object as T;
        if (event.type === 'BOOKMARK') {
          if (!live && object.metadata?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === 'true') {
            live = true;
            this.replace(initial);
            initial.length = 0;
          }
        } else if (!live) {
          if (event.type !== 'DELETED') initial.push(object);
        } else if (event.type === 'DELETED') this.set(keyOf(object), undefined);
        else this.set(keyOf(object), object);
      }
    } catch {
      // An ended watch: followed again.
    } finally {
      watch.stop();
    }
    return live;
  }

  private replace(objects: readonly T[]): void {
    const next = new Map(objects.map((o) => [keyOf(o), o] as const));
    for (const key of [...this.objects.keys()]) if (!next.has(key)) this.set(key, undefined);
    for (const [key, object] of next) this.set(key, object);
    if (!this.synced) {
      this.synced = true;
      const waiters = this.syncWaiters;
      this.syncWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  private set(key: string, object: T | undefined): void {
    const before = this.objects.get(key);
    if (object === undefined) this.objects.delete(key);
    else this.objects.set(key, object);
    if (before === undefined && object === undefined) return;
    for (const listener of this.listeners) listener(object, before);
  }
}
