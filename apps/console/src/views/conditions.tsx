import type { WireObject } from '../api/watch';
import { age } from '../components/cells';

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastHeartbeatTime?: string;
}

export function conditionsOf(object: WireObject): Condition[] {
  const c = (object as { status?: { conditions?: unknown } }).status?.conditions;
  return Array.isArray(c) ? (c as Condition[]).filter((x) => x && typeof x.type === 'string') : [];
}

interface Transition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  at: string;
}

/**
 * Each condition over time: every transition the object's versions seen since this page opened
 * show (and the last one of each before that, from lastTransitionTime), as a strip per condition and
 * as a table that says the same in words.
 */
export function Conditions({ object, history }: { object: WireObject; history: WireObject[] }) {
  const seen = new Map<string, Transition>();
  for (const version of [...history, object]) {
    for (const c of conditionsOf(version)) {
      const at = c.lastTransitionTime ?? version.metadata.creationTimestamp ?? '';
      const key = `${c.type}|${at}|${c.status}`;
      if (!seen.has(key)) seen.set(key, { type: c.type, status: c.status, reason: c.reason, message: c.message, at });
    }
  }
  const transitions = [...seen.values()].sort((a, b) => a.at.localeCompare(b.at));
  if (transitions.length === 0) return <p className="muted">This object reports no conditions.</p>;
  const types = [...new Set(transitions.map((t) => t.type))];
  const now = Date.now();
  const start = Math.min(...transitions.map((t) => Date.parse(t.at) || now));
  const span = Math.max(1, now - start);
  const width = 600;
  return (
    <div>
      <svg
        className="strips"
        role="img"
        aria-label="Conditions over time (the table below says the same)"
        viewBox={`0 0 ${width + 160} ${types.length * 26 + 20}`}
      >
        {types.map((type, row) => {
          const own = transitions.filter((t) => t.type === type);
          return (
            <g key={type} transform={`translate(0, ${row * 26})`}>
              <text x={0} y={16} className="strip-label">
                {type}
              </text>
              {own.map((t, i) => {
                const from = ((Date.parse(t.at) || start) - start) / span;
                const to = i + 1 < own.length ? ((Date.parse(own[i + 1].at) || now) - start) / span : 1;
                return <rect key={i} x={160 + from * width} y={4} width={Math.max(2, (to - from) * width)} height={16} className={`status-${t.status}`} />;
              })}
            </g>
          );
        })}
        <text x={160} y={types.length * 26 + 14} className="strip-label">
          {new Date(start).toLocaleTimeString()}
        </text>
        <text x={width + 160} y={types.length * 26 + 14} textAnchor="end" className="strip-label">
          now
        </text>
      </svg>
      <table className="grid" data-testid="condition-transitions">
        <thead>
          <tr>
            <th>When</th>
            <th>Condition</th>
            <th>Status</th>
            <th>Reason</th>
            <th>Message</th>
          </tr>
        </thead>
        <tbody>
          {transitions.map((t, i) => (
            <tr key={i}>
              <td>
                {t.at} ({age(t.at)} ago)
              </td>
              <td>{t.type}</td>
              <td>{t.status}</td>
              <td>{t.reason}</td>
              <td>{t.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
