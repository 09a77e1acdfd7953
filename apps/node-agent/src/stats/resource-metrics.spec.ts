import { cadvisorMetrics } from './cadvisor-metrics';
import { resourceMetrics } from './resource-metrics';
import type { CgroupUsage, NodeSnapshot } from './stats-provider';
import { summaryOf } from './summary';

function usage(path: string, cpuNanos: number, workingSet: number, time: number): CgroupUsage {
  return {
    path,
    sample: {
      time,
      cpu: { usageNanos: cpuNanos, periods: 3, throttledPeriods: 1, throttledNanos: 5 },
      memory: { usage: workingSet + 100, workingSet, rss: 1, cache: 2, mappedFile: 3, pageFaults: 4, majorPageFaults: 5, limit: 64 * 1024 * 1024 },
      spec: { shares: 307, quota: 30000, period: 100000 },
      pids: [7],
    },
    usageNanoCores: 300_000_000,
  };
}

const T = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
const node: NodeSnapshot = {
  nodeName: 'n1',
  time: T,
  bootTime: Date.UTC(2026, 0, 1),
  cores: 2,
  memoryCapacity: 8 * 1024 ** 3,
  usage: usage('/', 9_000_000_000, 1_000_000, T),
  podsUsage: usage('/kubepods', 4_000_000_000, 500_000, T),
  rlimit: { time: T, maxpid: 32768, curproc: 300 },
  pods: [
    {
      name: 'web "a"',
      namespace: 'default',
      uid: 'u1',
      startTime: T - 60_000,
      usage: usage('/kubepods/podu1', 2_500_000_000, 2048, T),
      sandbox: { id: 's1', image: '', usage: usage('/kubepods/podu1/s1', 1_000, 512, T) },
      containers: [{ name: 'app', id: 'c1', image: 'busybox:1.36', startTime: T - 50_000, usage: usage('/kubepods/podu1/c1', 2_000_000_000, 1024, T) }],
      volumes: [{ time: '2026-01-02T03:04:05Z', name: 'data', usedBytes: 4096, pvcRef: { name: 'data', namespace: 'default' } }],
    },
  ],
};

describe('resourceMetrics', () => {
  it("writes the kubelet's families with their labels, values in core-seconds and the reading's timestamp", () => {
    const text = resourceMetrics(node);
    expect(text).toContain('# TYPE container_cpu_usage_seconds_total counter\n');
    expect(text).toContain(`container_cpu_usage_seconds_total{container="app",namespace="default",pod="web \\"a\\""} 2 ${T}\n`);
    expect(text).toContain(`container_memory_working_set_bytes{container="app",namespace="default",pod="web \\"a\\""} 1024 ${T}\n`);
    expect(text).toContain(`container_start_time_seconds{container="app",namespace="default",pod="web \\"a\\""} ${(T - 50_000) / 1000}\n`);
    expect(text).toContain(`pod_cpu_usage_seconds_total{namespace="default",pod="web \\"a\\""} 2.5 ${T}\n`);
    expect(text).toContain(`node_cpu_usage_seconds_total 9 ${T}\n`);
    expect(text).toContain(`node_memory_working_set_bytes 1000000 ${T}\n`);
    expect(text).toContain('resource_scrape_error 0\n');
    expect(text).not.toContain('scrape_error 0\nscrape_error');
    expect(text).not.toMatch(/^scrape_error /m);
  });

  it('says resource_scrape_error 1 and nothing else when the stats could not be read', () => {
    expect(resourceMetrics(undefined)).toBe(
      '# HELP resource_scrape_error [STABLE] 1 if there was an error while getting container metrics, 0 otherwise\n# TYPE resource_scrape_error gauge\nresource_scrape_error 1\n',
    );
  });
});

describe('cadvisorMetrics', () => {
  it("labels each cgroup as the kubelet's cAdvisor does: the root, the pods' cgroup, each pod, its sandbox as POD and each container", () => {
    const text = cadvisorMetrics(node);
    expect(text).toContain(`container_cpu_usage_seconds_total{container="",id="/",image="",name="",namespace="",pod="",cpu="total"} 9 ${T}`);
    expect(text).toContain(
      `container_cpu_usage_seconds_total{container="",id="/kubepods/podu1",image="",name="",namespace="default",pod="web \\"a\\"",cpu="total"} 2.5`,
    );
    expect(text).toContain('container_memory_working_set_bytes{container="POD",id="/kubepods/podu1/s1",image="",name="s1",namespace="default"');
    expect(text).toContain(
      'container_spec_cpu_quota{container="app",id="/kubepods/podu1/c1",image="busybox:1.36",name="c1",namespace="default",pod="web \\"a\\""} 30000\n',
    );
    expect(text).toContain(
      `container_cpu_cfs_throttled_periods_total{container="app",id="/kubepods/podu1/c1",image="busybox:1.36",name="c1",namespace="default",pod="web \\"a\\""} 1 ${T}`,
    );
    expect(text).toContain('machine_cpu_cores 2\n');
  });
});

describe('summaryOf', () => {
  it("writes the kubelet's Summary: times to the second, available memory below the limit, volumes with their claim", () => {
    const summary = summaryOf(node);
    expect(summary.node).toMatchObject({ nodeName: 'n1', startTime: '2026-01-01T00:00:00Z', rlimit: { maxpid: 32768, curproc: 300 } });
    expect(summary.node.cpu).toEqual({ time: '2026-01-02T03:04:05Z', usageCoreNanoSeconds: 9_000_000_000, usageNanoCores: 300_000_000 });
    expect(summary.node.systemContainers?.[0].name).toBe('pods');
    const pod = summary.pods[0];
    expect(pod.podRef).toEqual({ name: 'web "a"', namespace: 'default', uid: 'u1' });
    expect(pod.containers[0].memory).toMatchObject({ workingSetBytes: 1024, availableBytes: 64 * 1024 * 1024 - 1024, usageBytes: 1124 });
    expect(pod.volume).toEqual([{ time: '2026-01-02T03:04:05Z', name: 'data', usedBytes: 4096, pvcRef: { name: 'data', namespace: 'default' } }]);
    expect(pod.process_stats).toEqual({ process_count: 1 });
  });
});
