// Test support for the cacher specs: real embedded stores on temporary directories, a counting proxy
// over a real store, and bounded event collection.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedStorage, objectStorageKey, prefixKey, type Storage, type StoredObject } from '@svc/storage';
import type { CacheWatchEvent } from '../cache-events';
import type { CacheWatcher } from '../cache-watcher';

export interface TestObject extends StoredObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
  };
  data?: Record<string, string>;
}

export const PREFIX = prefixKey({ prefix: '/registry', group: '', resource: 'configmaps' });
export const OTHER_PREFIX = prefixKey({ prefix: '/registry', group: '', resource: 'secrets' });

export function nsPrefix(namespace: string): string {
  return prefixKey({ prefix: '/registry', group: '', resource: 'configmaps', namespace });
}

export function keyOf(name: string, namespace = 'default'): string {
  return objectStorageKey({ prefix: '/registry', group: '', resource: 'configmaps', namespace, name });
}

export function otherKey(name: string): string {
  return objectStorageKey({ prefix: '/registry', group: '', resource: 'secrets', namespace: 'default', name });
}

export function configMap(name: string, labels: Record<string, string> = {}, namespace = 'default'): TestObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels }, data: { n: name } };
}

export function rv(object: StoredObject): number {
  return Number(object.metadata?.resourceVersion);
}

const directories: string[] = [];

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-watchcache-'));
  directories.push(dir);
  return dir;
}

export function openStore(dataDir = tempDir(), options: { watchBufferLimit?: number } = {}): EmbeddedStorage {
  return EmbeddedStorage.open({ dataDir, compactionIntervalMs: 0, tooLargeWaitMs: 200, ...options });
}

export function removeTempDirs(): void {
  for (const dir of directories.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * A spy over a real store: every call goes to the current target, and calls are counted per method.
 * `swap` points it at another real store (a reopened one) to simulate a backend coming back.
 */
export interface StorageSpy {
  storage: Storage;
  calls: Map<string, number>;
  swap(target: Storage): void;
}

export function spyOn(target: Storage): StorageSpy {
  let current = target;
  const calls = new Map<string, number>();
  const storage = new Proxy({} as Storage, {
    get(_unused, property) {
      const value = Reflect.get(current, property) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.set(String(property), (calls.get(String(property)) ?? 0) + 1);
        return (value as (...a: unknown[]) => unknown).apply(current, args);
      };
    },
  });
  return { storage, calls, swap: (next) => (current = next) };
}

type Pulled<T extends StoredObject> = CacheWatchEvent<T> | 'done' | Error;

// A pull that outlived its timeout is kept and answered by the next call, so no event is lost.
const pending = new WeakMap<object, Promise<unknown>>();

/** The next event within `timeoutMs`, 'timeout' if none came, 'done', or the error the iteration threw. */
export async function nextEvent<T extends StoredObject>(watcher: CacheWatcher<T>, timeoutMs = 2_000): Promise<Pulled<T> | 'timeout'> {
  let pull = pending.get(watcher) as Promise<Pulled<T>> | undefined;
  if (pull === undefined) {
    pull = watcher[Symbol.asyncIterator]()
      .next()
      .then(
        (r): Pulled<T> => (r.done ? 'done' : r.value),
        (e: unknown): Pulled<T> => e as Error,
      );
    pending.set(watcher, pull);
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
  try {
    const result = await Promise.race([pull, timeout]);
    if (result !== 'timeout') pending.delete(watcher);
    return result;
  } finally {
    clearTimeout(timer);
  }
}

/** Collects events until `until` says stop, failing after `timeoutMs`. */
export async function collect<T extends StoredObject>(
  watcher: CacheWatcher<T>,
  until: (events: Array<CacheWatchEvent<T>>) => boolean,
  timeoutMs = 5_000,
): Promise<Array<CacheWatchEvent<T>>> {
  const events: Array<CacheWatchEvent<T>> = [];
  const deadline = Date.now() + timeoutMs;
  while (!until(events)) {
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`timed out after ${events.length} events: ${JSON.stringify(summary(events))}`);
    const event = await nextEvent(watcher, left);
    if (event === 'timeout') continue;
    if (event === 'done' || event instanceof Error) {
      throw new Error(`watch ended (${String(event)}) after ${events.length} events`);
    }
    events.push(event);
  }
  return events;
}

export function summary<T extends StoredObject>(events: Array<CacheWatchEvent<T>>): string[] {
  return events.map((e) => (e.type === 'BOOKMARK' ? `BOOKMARK@${e.revision}` : `${e.type} ${e.key.split('/').pop()}@${e.revision}`));
}

export function until(deadlineMs: number, check: () => boolean, stepMs = 10): Promise<void> {
  const end = Date.now() + deadlineMs;
  return new Promise((resolve, reject) => {
    const poll = (): void => {
      if (check()) resolve();
      else if (Date.now() > end) reject(new Error('condition not met in time'));
      else setTimeout(poll, stepMs);
    };
    poll();
  });
}

/**
 * Resolves once the cache has seen every write made to `store` so far (a consistent read asks the
 * backend for progress, so this works for an idle resource too).
 */
export async function caughtUp(cacher: { list(options: { consistent: boolean }): Promise<unknown>; revision(): number }, store: Storage): Promise<void> {
  const target = await store.currentRevision();
  await cacher.list({ consistent: true });
  if (cacher.revision() < target) throw new Error(`cache at ${cacher.revision()}, store at ${target}`);
}
