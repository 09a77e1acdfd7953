import type { KubeObject, SharedInformer, SharedInformerFactory } from '@svc/informers';
import { Gauge, type Registry } from 'prom-client';

export const INFORMER_METRIC_NAMES = {
  objects: 'svc_informer_cached_objects',
  bytes: 'svc_informer_cached_approximate_bytes',
  lists: 'svc_informer_lists',
} as const;

/** Objects measured per informer and scrape: enough for a stable mean, cheap for any cache size. */
const SAMPLE_SIZE = 64;

/**
 * Per informer of the factory, read at each scrape: cached objects, their approximate size (the mean
 * JSON length of a sample of them times their number; the heap holds about twice that), and the
 * lists it has made (a relist is a full read of the resource from the API server).
 */
export function registerInformerMetrics(registry: Registry, informers: SharedInformerFactory): void {
  const known = factoriesByRegistry.get(registry);
  if (known) {
    known.add(informers);
    return;
  }
  // Several managers may share a registry: one set of families reads all their factories.
  const factories = new Set([informers]);
  factoriesByRegistry.set(registry, factories);
  const gauge = (name: string, help: string, read: (informer: SharedInformer<KubeObject>) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['resource'],
      registers: [registry],
      collect() {
        this.reset();
        for (const factory of factories) {
          for (const key of factory.keys()) {
            const informer = factory.get(key);
            if (informer) this.set({ resource: key }, read(informer));
          }
        }
      },
    });
  gauge(INFORMER_METRIC_NAMES.objects, 'Objects held by each informer cache', (i) => i.indexer.size);
  gauge(INFORMER_METRIC_NAMES.bytes, 'Approximate JSON bytes of the objects held by each informer cache (the mean of a sample times their number)', (i) =>
    approximateBytes(i.indexer.list()),
  );
  gauge(INFORMER_METRIC_NAMES.lists, 'Lists each informer has made since it started, the first one included', (i) => i.listCount);
}

const factoriesByRegistry = new WeakMap<Registry, Set<SharedInformerFactory>>();

function approximateBytes(objects: readonly unknown[]): number {
  if (objects.length === 0) return 0;
  const step = Math.max(1, Math.floor(objects.length / SAMPLE_SIZE));
  let sampled = 0;
  let length = 0;
  for (let i = 0; i < objects.length && sampled < SAMPLE_SIZE; i += step, sampled++) length += JSON.stringify(objects[i])?.length ?? 0;
  return Math.round((length / sampled) * objects.length);
}
