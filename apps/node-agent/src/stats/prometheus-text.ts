/** The Prometheus text format's content type, as the kubelet's endpoints answer it. */
export const PROMETHEUS_TEXT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function escapeHelp(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  // Go's strconv.FormatFloat(v, 'g', -1, 64) writes large values with an exponent; Prometheus reads both.
  return Math.abs(value) >= 1e21 || (value !== 0 && Math.abs(value) < 1e-4) ? value.toExponential() : String(value);
}

export interface Sample {
  labels?: Readonly<Record<string, string>>;
  value: number;
  /** Milliseconds since the epoch, written after the value (the kubelet stamps resource metrics with their reading's time). */
  timestamp?: number;
}

/**
 * Writes metric families in the Prometheus text format (0.0.4): HELP and TYPE once per family, then
 * its samples. Collectors that are not prom-client's gauges need this: the samples carry their own
 * timestamps and labels of containers that may be gone at the next scrape.
 */
export class PrometheusText {
  private readonly lines: string[] = [];

  family(name: string, type: 'counter' | 'gauge', help: string, samples: readonly Sample[]): this {
    if (samples.length === 0) return this;
    this.lines.push(`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`);
    for (const sample of samples) {
      const labels = Object.entries(sample.labels ?? {});
      const labelText = labels.length > 0 ? `{${labels.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',')}}` : '';
      const stamp = sample.timestamp !== undefined ? ` ${Math.round(sample.timestamp)}` : '';
      this.lines.push(`${name}${labelText} ${formatValue(sample.value)}${stamp}`);
    }
    return this;
  }

  toString(): string {
    return this.lines.length > 0 ? `${this.lines.join('\n')}\n` : '';
  }
}
