import { useEffect, useRef, useState } from 'react';
import { apiText, errorText } from '../api/client';
import { listAll, type WireObject } from '../api/watch';
import { age } from '../components/cells';
import { Sparkline } from '../components/sparkline';
import { useLiveObjects } from '../state/live';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus' text exposition, the samples only. */
export function parseMetrics(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[3] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]] = pair[2];
    out.push({ name: match[1], labels, value: Number(match[4]) });
  }
  return out;
}

const sum = (samples: Sample[], name: string, keep: (l: Record<string, string>) => boolean = () => true) =>
  samples.filter((s) => s.name === name && keep(s.labels)).reduce((t, s) => t + s.value, 0);

interface Point {
  at: number;
  requests: number;
  durationSum: number;
  durationCount: number;
  watches: number;
  inflight: number;
  queued?: number;
  storedObjects: number;
}

const HISTORY = 60;
const POLL_MS = 2_000;

interface HealthLine {
  name: string;
  ok: boolean;
}

function parseHealth(text: string): HealthLine[] {
  return text
    .split('\n')
    .map((l) => /^\[([+-])\](\S+)/.exec(l.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ name: m[2], ok: m[1] === '+' }));
}

/**
 * The control plane: who leads each component (their Leases), the API server's health checks, and
 * request rates, latencies, watches and queues from its /metrics, as small charts over the last two
 * minutes. Each read is the user's own: without the right to /metrics the charts say so.
 */
export function Overview() {
  const leases = useLiveObjects<WireObject & { spec?: { holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number } }>(
    '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases',
  );
  const [health, setHealth] = useState<{ livez?: HealthLine[]; readyz?: HealthLine[]; error?: string }>({});
  // The API server's own probes of the controller manager, the scheduler and the store (componentstatuses,
  // which cannot be watched: read every tenth poll, since each read probes the components).
  const [components, setComponents] = useState<Array<WireObject & { conditions?: Array<{ type: string; status: string; message?: string; error?: string }> }>>(
    [],
  );
  const [points, setPoints] = useState<Point[]>([]);
  const [metricsError, setMetricsError] = useState<string | undefined>();
  const [nodes, setNodes] = useState<{ total: number; ready: number } | undefined>();
  const last = useRef<Point | undefined>(undefined);
  useEffect(() => {
    let stopped = false;
    let polls = 0;
    const poll = async () => {
      if (polls++ % 10 === 0) {
        listAll<WireObject>('/api/v1/componentstatuses').then(
          (list) => !stopped && setComponents(list.items as typeof components),
          () => !stopped && setComponents([]),
        );
      }
      try {
        const [livez, readyz] = await Promise.all([apiText('/livez?verbose'), apiText('/readyz?verbose')]);
        if (!stopped) setHealth({ livez: parseHealth(livez), readyz: parseHealth(readyz) });
      } catch (error) {
        if (!stopped) setHealth({ error: errorText(error) });
      }
      try {
        const samples = parseMetrics(await apiText('/metrics'));
        const point: Point = {
          at: Date.now(),
          requests: sum(samples, 'apiserver_request_total'),
          durationSum: sum(samples, 'apiserver_request_duration_seconds_sum', (l) => l.verb !== 'WATCH' && l.verb !== 'CONNECT'),
          durationCount: sum(samples, 'apiserver_request_duration_seconds_count', (l) => l.verb !== 'WATCH' && l.verb !== 'CONNECT'),
          watches: sum(samples, 'apiserver_longrunning_requests', (l) => l.verb === 'WATCH'),
          inflight: sum(samples, 'apiserver_current_inflight_requests'),
          queued: samples.some((s) => s.name === 'apiserver_flowcontrol_current_inqueue_requests')
            ? sum(samples, 'apiserver_flowcontrol_current_inqueue_requests')
            : undefined,
          storedObjects: sum(samples, 'apiserver_storage_objects'),
        };
        if (!stopped) {
          setMetricsError(undefined);
          setPoints((p) => [...p.slice(-HISTORY), point]);
        }
        last.current = point;
      } catch (error) {
        if (!stopped) setMetricsError(errorText(error));
      }
      try {
        const list = await listAll<WireObject & { status?: { conditions?: Array<{ type: string; status: string }> } }>('/api/v1/nodes');
        if (!stopped)
          setNodes({
            total: list.items.length,
            ready: list.items.filter((n) => (n.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')).length,
          });
      } catch {
        if (!stopped) setNodes(undefined);
      }
    };
    void poll();
    const timer = setInterval(() => void poll(), POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, []);
  const rates: number[] = [];
  const latencies: number[] = [];
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1];
    const b = points[i];
    const dt = (b.at - a.at) / 1000;
    rates.push(Math.max(0, (b.requests - a.requests) / dt));
    const count = b.durationCount - a.durationCount;
    latencies.push(count > 0 ? ((b.durationSum - a.durationSum) / count) * 1000 : 0);
  }
  const latest = points[points.length - 1];
  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Control plane</h1>
      <div className="cards">
        <article className="card" aria-labelledby="leaders-title">
          <h2 id="leaders-title">Leaders</h2>
          {leases.error ? (
            <p role="alert" className="error">
              {leases.error.message}
            </p>
          ) : (
            <table className="grid" data-testid="leaders">
              <thead>
                <tr>
                  <th>Component</th>
                  <th>Leader</th>
                  <th>Renewed</th>
                </tr>
              </thead>
              <tbody>
                {leases.items
                  .filter((l) => !l.metadata.name?.startsWith('apiserver-'))
                  .map((l) => (
                    <tr key={l.metadata.uid}>
                      <td>{l.metadata.name}</td>
                      <td>{l.spec?.holderIdentity ?? 'none'}</td>
                      <td>{l.spec?.renewTime ? `${age(l.spec.renewTime)} ago` : ''}</td>
                    </tr>
                  ))}
              </tbody>
            </table>
          )}
          {nodes && (
            <p>
              Nodes ready: {nodes.ready} of {nodes.total}
            </p>
          )}
        </article>
        <article className="card" aria-labelledby="health-title">
          <h2 id="health-title">Health</h2>
          {health.error && (
            <p role="alert" className="error">
              {health.error}
            </p>
          )}
          {components.length > 0 && (
            <table className="grid" data-testid="components">
              <thead>
                <tr>
                  <th>Component</th>
                  <th>Healthy</th>
                  <th>Message</th>
                </tr>
              </thead>
              <tbody>
                {components.map((c) => {
                  const healthy = (c.conditions ?? []).find((x) => x.type === 'Healthy');
                  return (
                    <tr key={c.metadata.name} className={healthy?.status === 'True' ? undefined : 'warning'}>
                      <td>{c.metadata.name}</td>
                      <td>{healthy?.status ?? 'Unknown'}</td>
                      <td>{healthy?.message || healthy?.error}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
          {(['livez', 'readyz'] as const).map((kind) => {
            const lines = health[kind];
            if (!lines) return null;
            const failed = lines.filter((l) => !l.ok);
            return (
              <details key={kind}>
                <summary>
                  {kind}: {failed.length === 0 ? 'ok' : `${failed.length} failing`} ({lines.length} checks)
                </summary>
                <ul className="health">
                  {lines.map((l) => (
                    <li key={l.name} className={l.ok ? 'ok' : 'failing'}>
                      {l.ok ? 'ok' : 'failing'} {l.name}
                    </li>
                  ))}
                </ul>
              </details>
            );
          })}
        </article>
        <article className="card wide" aria-labelledby="metrics-title">
          <h2 id="metrics-title">API server</h2>
          {metricsError ? (
            <p role="alert" className="error">
              /metrics: {metricsError}
            </p>
          ) : (
            <div className="charts">
              <Sparkline label="Requests per second" values={rates} unit="/s" />
              <Sparkline label="Mean latency (non-watch)" values={latencies} unit=" ms" />
              <Sparkline label="Open watches" values={points.map((p) => p.watches)} />
              <Sparkline label="Requests in flight" values={points.map((p) => p.inflight)} />
              {latest?.queued !== undefined && <Sparkline label="Requests queued (priority and fairness)" values={points.map((p) => p.queued ?? 0)} />}
              <Sparkline label="Stored objects" values={points.map((p) => p.storedObjects)} />
            </div>
          )}
        </article>
      </div>
    </section>
  );
}
