import { Registry } from 'prom-client';
import { ManualQueueClock } from './manual-clock';
import { WORKQUEUE_METRIC_NAMES as N } from './metrics';
import { RateLimitingQueue } from './rate-limiting-queue';
import { WorkQueue } from './queue';

// Histogram samples carry their series name (_bucket, _sum, _count); the exported typings omit it.
interface Sample {
  value: number;
  labels: { name?: string | number };
  metricName?: string;
}

async function sample(registry: Registry, metric: string, series = metric, name = 'widgets'): Promise<number | undefined> {
  const family = registry.getSingleMetric(metric);
  if (!family) return undefined;
  const { values } = (await family.get()) as { values: Sample[] };
  return values.find((v) => (v.metricName ?? metric) === series && v.labels.name === name)?.value;
}

describe('work queue metrics', () => {
  it("records client-go's workqueue metrics, labelled by queue name", async () => {
    const registry = new Registry();
    const clock = new ManualQueueClock();
    const q = new RateLimitingQueue({ name: 'widgets', registry, clock });

    q.add('a');
    q.add('b');
    q.add('a');
    expect(await sample(registry, N.adds)).toBe(2);
    expect(await sample(registry, N.depth)).toBe(2);

    clock.advance(2_000);
    await q.get(); // a, after 2 s in the queue
    expect(await sample(registry, N.depth)).toBe(1);
    expect(await sample(registry, N.queueDuration, `${N.queueDuration}_count`)).toBe(1);
    expect(await sample(registry, N.queueDuration, `${N.queueDuration}_sum`)).toBe(2);

    clock.advance(3_000);
    await q.get(); // b, after 5 s in the queue
    clock.advance(1_000);
    expect(await sample(registry, N.unfinishedWork)).toBe(5); // a for 4 s, b for 1 s
    expect(await sample(registry, N.longestRunningProcessor)).toBe(4);

    q.done('a');
    expect(await sample(registry, N.workDuration, `${N.workDuration}_count`)).toBe(1);
    expect(await sample(registry, N.workDuration, `${N.workDuration}_sum`)).toBe(4);
    expect(await sample(registry, N.unfinishedWork)).toBe(1);

    q.addRateLimited('a');
    q.addAfter('c', 0);
    expect(await sample(registry, N.retries)).toBe(2);
    clock.advance(5);
    expect(await sample(registry, N.adds)).toBe(4);
    expect(await sample(registry, N.depth)).toBe(2);

    const text = await registry.metrics();
    expect(text).toContain('workqueue_depth{name="widgets"} 2');
    expect(text).toContain('workqueue_queue_duration_seconds_bucket{le="1e-8",name="widgets"}');
    expect(text).toContain('workqueue_queue_duration_seconds_bucket{le="10",name="widgets"} 2');
    expect(text).toContain('workqueue_queue_duration_seconds_bucket{le="0.00001",name="widgets"} 0');
    q.shutDown();
  });

  it('counts a key added while processed as an add that waits until done', async () => {
    const registry = new Registry();
    const q = new WorkQueue({ name: 'widgets', registry, clock: new ManualQueueClock() });
    q.add('a');
    await q.get();
    q.add('a');
    expect(await sample(registry, N.depth)).toBe(1);
    expect(q.len()).toBe(0);
    q.done('a');
    await q.get();
    expect(await sample(registry, N.depth)).toBe(0);
    expect(await sample(registry, N.adds)).toBe(2);
  });

  it('records nothing for a queue without a name, or without a registry', async () => {
    const registry = new Registry();
    const q = new WorkQueue({ registry });
    q.add('a');
    expect(await registry.getMetricsAsJSON()).toHaveLength(0);
    expect(() => new WorkQueue({ name: 'widgets' }).add('a')).not.toThrow();
  });

  it('lets several queues share a registry, and keeps registries apart', async () => {
    const shared = new Registry();
    const other = new Registry();
    const one = new WorkQueue({ name: 'one', registry: shared });
    const two = new WorkQueue({ name: 'two', registry: shared });
    const three = new WorkQueue({ name: 'one', registry: other });
    one.add('a');
    two.add('a');
    two.add('b');
    three.add('x');
    expect(await sample(shared, N.depth, N.depth, 'one')).toBe(1);
    expect(await sample(shared, N.depth, N.depth, 'two')).toBe(2);
    expect(await sample(other, N.depth, N.depth, 'one')).toBe(1);
    expect(await sample(other, N.depth, N.depth, 'two')).toBeUndefined();
  });
});
