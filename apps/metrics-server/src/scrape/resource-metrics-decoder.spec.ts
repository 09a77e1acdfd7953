import { decodeResourceMetrics, parseSampleLine } from './resource-metrics-decoder';

const TEXT = `# HELP container_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the container in core-seconds
# TYPE container_cpu_usage_seconds_total counter
container_cpu_usage_seconds_total{container="app",namespace="default",pod="web"} 2.5 1767323045678
container_cpu_usage_seconds_total{container="side",namespace="default",pod="web"} 1 1767323045678
container_cpu_usage_seconds_total{container="half",namespace="default",pod="broken"} 1 1767323045678
container_memory_working_set_bytes{container="app",namespace="default",pod="web"} 1024 1767323045678
container_memory_working_set_bytes{container="side",namespace="default",pod="web"} 2048 1767323045678
container_start_time_seconds{container="app",namespace="default",pod="web"} 1767323000.5
node_cpu_usage_seconds_total 9 1767323045600
node_memory_working_set_bytes 1e+06 1767323045600
resource_scrape_error 0
`;

describe('decodeResourceMetrics', () => {
  it("reads the node's and each container's CPU (as nanocore-seconds) and working set at their sample's time", () => {
    const batch = decodeResourceMetrics(TEXT, 1, 'n1');
    expect(batch.nodes.get('n1')).toEqual({ startTime: 0, timestamp: 1767323045600, cumulativeCpuNanos: 9e9, memoryBytes: 1e6 });
    expect(batch.pods.get('default/web')?.containers.get('app')).toEqual({
      startTime: 1767323000500,
      timestamp: 1767323045678,
      cumulativeCpuNanos: 2.5e9,
      memoryBytes: 1024,
    });
    expect(batch.pods.get('default/web')?.containers.size).toBe(2);
  });

  it('drops a pod whose containers are not all complete, and a node without memory', () => {
    const batch = decodeResourceMetrics(TEXT.replace(/^node_memory.*$/m, ''), 1, 'n1');
    expect(batch.pods.has('default/broken')).toBe(false);
    expect(batch.nodes.size).toBe(0);
  });

  it("uses the request's time for samples without a timestamp", () => {
    const batch = decodeResourceMetrics('node_cpu_usage_seconds_total 3\nnode_memory_working_set_bytes 5\n', 42, 'n');
    expect(batch.nodes.get('n')?.timestamp).toBe(42);
  });

  it('refuses malformed lines with a reason', () => {
    expect(() => decodeResourceMetrics('node_cpu_usage_seconds_total{container="x} 1\n', 0, 'n')).toThrow(/unterminated label value/);
    expect(() => parseSampleLine('9bad 1')).toThrow(/metric name/);
    expect(() => parseSampleLine('x{a="b"}')).toThrow(/expected a value/);
    expect(() => parseSampleLine(`x{a="${'y'.repeat(70_000)}"} 1`)).toThrow(/too long/);
    expect(parseSampleLine('x{a="q\\"uote\\\\"} 1 2')).toEqual({ name: 'x', labels: new Map([['a', 'q"uote\\']]), value: 1, timestamp: 2 });
  });
});
