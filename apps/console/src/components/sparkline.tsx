/** A small line chart of recent values, with its latest value and range in words. */
export function Sparkline({ label, values, unit = '' }: { label: string; values: number[]; unit?: string }) {
  const width = 220;
  const height = 48;
  const max = Math.max(1e-9, ...values);
  const latest = values.length > 0 ? values[values.length - 1] : undefined;
  const format = (v: number) => (v >= 100 ? Math.round(v).toString() : (Math.round(v * 10) / 10).toString());
  const points = values.map((v, i) => `${values.length === 1 ? width : (i / (values.length - 1)) * width},${height - 2 - (v / max) * (height - 4)}`).join(' ');
  const summary = latest === undefined ? 'no data yet' : `${format(latest)}${unit} now, at most ${format(max)}${unit}`;
  return (
    <figure className="spark">
      <figcaption>
        {label}: <strong>{latest === undefined ? '...' : `${format(latest)}${unit}`}</strong>
      </figcaption>
      <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${label}: ${summary}`}>
        <polyline points={points} className="line" />
      </svg>
    </figure>
  );
}
