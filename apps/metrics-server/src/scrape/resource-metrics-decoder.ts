import { podKey, type MetricsBatch, type MetricsPoint } from '../storage/metrics-point';

/** Longest line read; a longer one is an error (a node agent's lines are a few hundred bytes). */
const MAX_LINE = 64 * 1024;

interface Series {
  name: string;
  labels: Map<string, string>;
  value: number;
  timestamp?: number;
}

/** One sample line of the Prometheus text format, or undefined for a comment or a blank line; throws on a malformed one. */
export function parseSampleLine(line: string): Series | undefined {
  if (line.length > MAX_LINE) throw new Error(`line of ${line.length} bytes is too long`);
  const text = line.trim();
  if (text === '' || text.startsWith('#')) return undefined;
  const nameMatch = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(text);
  if (!nameMatch) throw new Error(`expected a metric name: ${JSON.stringify(text.slice(0, 80))}`);
  const name = nameMatch[0];
  let i = name.length;
  const labels = new Map<string, string>();
  if (text[i] === '{') {
    i++;
    for (;;) {
      while (text[i] === ' ') i++;
      if (text[i] === '}') {
        i++;
        break;
      }
      const labelMatch = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(text.slice(i));
      if (!labelMatch) throw new Error(`expected a label name in ${name}`);
      i += labelMatch[0].length;
      if (text[i] !== '=' || text[i + 1] !== '"') throw new Error(`expected ="..." after label ${labelMatch[0]} in ${name}`);
      i += 2;
      let value = '';
      for (;;) {
        const c = text[i];
        if (c === undefined) throw new Error(`unterminated label value in ${name}`);
        i++;
        if (c === '"') break;
        if (c === '\\') {
          const next = text[i++];
          value += next === 'n' ? '\n' : next === undefined ? '' : next;
        } else value += c;
      }
      labels.set(labelMatch[0], value);
      while (text[i] === ' ') i++;
      if (text[i] === ',') i++;
    }
  }
  const rest = text.slice(i).trim().split(/\s+/);
  const value = rest[0] === '+Inf' ? Infinity : rest[0] === '-Inf' ? -Infinity : Number(rest[0]);
  if (rest[0] === undefined || rest[0] === '' || (Number.isNaN(value) && rest[0] !== 'NaN')) throw new Error(`expected a value for ${name}`);
  const timestamp = rest[1] !== undefined ? Number(rest[1]) : undefined;
  if (timestamp !== undefined && !Number.isFinite(timestamp)) throw new Error(`malformed timestamp for ${name}`);
  return { name, labels, value, timestamp };
}

function emptyPoint(): MetricsPoint {
  return { startTime: 0, timestamp: 0, cumulativeCpuNanos: 0, memoryBytes: 0 };
}

/**
 * A node agent's `/metrics/resource` answer as metrics-server decodes it: the node's and each running
 * container's cumulative CPU and working set, stamped with the sample's own time (`defaultTime`, the
 * request's, when it has none), and the containers' start times. A node reading without both CPU and
 * memory is dropped; so is a pod any of whose containers lacks either (a half-read pod would be
 * understated).
 */
export function decodeResourceMetrics(text: string, defaultTime: number, nodeName: string): MetricsBatch {
  const batch: MetricsBatch = { nodes: new Map(), pods: new Map() };
  const node = emptyPoint();
  const pods = new Map<string, Map<string, MetricsPoint>>();
  const container = (series: Series): MetricsPoint => {
    const key = podKey(series.labels.get('namespace') ?? '', series.labels.get('pod') ?? '');
    const name = series.labels.get('container') ?? '';
    let containers = pods.get(key);
    if (!containers) pods.set(key, (containers = new Map<string, MetricsPoint>()));
    let point = containers.get(name);
    if (!point) containers.set(name, (point = emptyPoint()));
    return point;
  };
  for (const line of text.split('\n')) {
    const series = parseSampleLine(line);
    if (!series) continue;
    const time = series.timestamp ?? defaultTime;
    switch (series.name) {
      case 'node_cpu_usage_seconds_total':
        node.cumulativeCpuNanos = Math.round(series.value * 1e9);
        node.timestamp = time;
        break;
      case 'node_memory_working_set_bytes':
        node.memoryBytes = series.value;
        node.timestamp = time;
        break;
      case 'container_cpu_usage_seconds_total': {
        const point = container(series);
        point.cumulativeCpuNanos = Math.round(series.value * 1e9);
        point.timestamp = time;
        break;
      }
      case 'container_memory_working_set_bytes': {
        const point = container(series);
        point.memoryBytes = series.value;
        point.timestamp = time;
        break;
      }
      case 'container_start_time_seconds':
        container(series).startTime = Math.round(series.value * 1000);
        break;
      default:
        break;
    }
  }
  if (node.timestamp !== 0 && node.cumulativeCpuNanos !== 0 && node.memoryBytes !== 0) batch.nodes.set(nodeName, node);
  for (const [key, containers] of pods) {
    const complete = [...containers.values()].every((p) => p.cumulativeCpuNanos !== 0 && p.memoryBytes !== 0);
    if (complete && containers.size > 0) batch.pods.set(key, { containers });
  }
  return batch;
}
