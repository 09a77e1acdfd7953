import type { MetricsBatch, MetricsPoint } from './metrics-point';
import { MetricsStorage, resourceUsage } from './metrics-storage';

function point(timestamp: number, cpuSeconds: number, memory = 1000, startTime = 1_000): MetricsPoint {
  return { startTime, timestamp, cumulativeCpuNanos: cpuSeconds * 1e9, memoryBytes: memory };
}

function batch(time: number, cpuSeconds: number, startTime = 1_000): MetricsBatch {
  return {
    nodes: new Map([['n1', point(time, cpuSeconds * 4)]]),
    pods: new Map([['default/web', { containers: new Map([['app', point(time, cpuSeconds, 2048, startTime)]]) }]]),
  };
}

describe('MetricsStorage', () => {
  it('answers the CPU rate between the last two scrapes and the last memory, with their window', () => {
    const storage = new MetricsStorage(15_000);
    storage.store(batch(100_000, 10));
    expect(storage.ready).toBe(false);
    expect(storage.podUsage('default', 'web')).toBeUndefined();
    storage.store(batch(115_000, 13));
    expect(storage.ready).toBe(true);
    expect(storage.nodeUsage('n1')).toEqual({ cpuNanoCores: 800_000_000, memoryBytes: 1000, timestamp: 115_000, windowMs: 15_000 });
    expect(storage.podUsage('default', 'web')).toEqual({
      containers: [{ name: 'app', usage: { cpuNanoCores: 200_000_000, memoryBytes: 2048, timestamp: 115_000, windowMs: 15_000 } }],
      timestamp: 115_000,
      windowMs: 15_000,
    });
  });

  it('keeps the previous reading when a scrape brings nothing newer', () => {
    const storage = new MetricsStorage(15_000);
    storage.store(batch(100_000, 10));
    storage.store(batch(115_000, 13));
    storage.store(batch(115_000, 13));
    expect(storage.podUsage('default', 'web')?.windowMs).toBe(15_000);
  });

  it('forgets a container that restarted since its last reading', () => {
    const storage = new MetricsStorage(15_000);
    storage.store(batch(100_000, 10));
    storage.store(batch(200_000, 1, 150_000));
    expect(storage.podUsage('default', 'web')).toBeUndefined();
  });

  it('gives a young container a reading at its start, so it has a rate after one scrape', () => {
    const storage = new MetricsStorage(60_000);
    storage.store(batch(112_000, 3, 100_000));
    expect(storage.podUsage('default', 'web')?.containers[0].usage.cpuNanoCores).toBe(250_000_000);
  });

  it('refuses a rate over counters that went back', () => {
    expect(resourceUsage(point(2, 1), point(1, 2))).toBeUndefined();
  });
});
