import { Registry } from 'prom-client';
import { PodStartMetrics } from './pod-start-metrics';

async function render(metrics: PodStartMetrics): Promise<string> {
  const registry = new Registry();
  for (const metric of metrics.all()) registry.registerMetric(metric);
  return registry.metrics();
}

describe('PodStartMetrics', () => {
  it('times the steps of a first start only, failed ones included', async () => {
    const metrics = new PodStartMetrics();
    await expect(metrics.step(true, 'sandbox', async () => 'id')).resolves.toBe('id');
    await expect(metrics.step(true, 'sandbox', () => Promise.reject(new Error('no network')))).rejects.toThrow('no network');
    await metrics.step(false, 'sandbox', async () => undefined);
    expect(await render(metrics)).toMatch(/^nodeagent_pod_start_step_duration_seconds_count\{step="sandbox"\} 2$/m);
  });

  it('counts runtime calls and failures by operation', async () => {
    const metrics = new PodStartMetrics();
    metrics.runtimeCall('StartContainer', 0.2, false);
    metrics.runtimeCall('StartContainer', 0.1, true);
    const text = await render(metrics);
    expect(text).toMatch(/^nodeagent_runtime_operations_duration_seconds_count\{operation_type="StartContainer"\} 2$/m);
    expect(text).toMatch(/^nodeagent_runtime_operations_errors_total\{operation_type="StartContainer"\} 1$/m);
  });
});
