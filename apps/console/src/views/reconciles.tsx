import { useMemo } from 'react';
import { collectionPath, resourceForKind, type DiscoveredResource } from '../api/discovery';
import { age } from '../components/cells';
import { useApp } from '../state/app-context';
import { useLiveObjects } from '../state/live';
import { objectHref } from '../state/route';
import type { EventObject } from './object-events';

/** The label and annotation the operator framework publishes each reconcile under. */
const CONTROLLER_LABEL = 'reconcile.svc.io/controller';
const RECORD_ANNOTATION = 'reconcile.svc.io/record';

interface TriggerEvent {
  type: string;
  kind: string;
  namespace?: string;
  name: string;
  count: number;
}

export interface ReconcileRecord {
  controller: string;
  namespace?: string;
  name: string;
  startTime: string;
  durationMs: number;
  result: string;
  requeueAfterMs?: number;
  error?: string;
  trigger: { events: TriggerEvent[]; total: number; dropped: number };
  writes: Array<{ verb: string; apiVersion: string; resource: string; kind?: string; namespace?: string; name: string; resourceVersion?: string }>;
  writesDropped?: number;
  unrecordedBefore?: number;
}

interface Entry {
  uid: string;
  kind: string;
  apiVersion?: string;
  record: ReconcileRecord;
}

/** The records in Events, read as data: a malformed one is left out, never shown as markup. */
function entries(events: EventObject[]): Entry[] {
  const out: Entry[] = [];
  for (const e of events) {
    const text = e.metadata.annotations?.[RECORD_ANNOTATION];
    if (!text) continue;
    try {
      const record = JSON.parse(text) as ReconcileRecord;
      if (typeof record?.controller !== 'string' || !record.trigger || !Array.isArray(record.writes)) continue;
      const involved = e.involvedObject;
      out.push({ uid: e.metadata.uid ?? '', kind: involved?.kind ?? '', apiVersion: involved?.apiVersion, record });
    } catch {
      // not a record
    }
  }
  return out.sort((a, b) => b.record.startTime.localeCompare(a.record.startTime));
}

export function triggerText(t: ReconcileRecord['trigger']): string {
  if (!t || t.total === 0) return 'no recorded cause';
  const parts = t.events.map((e) => `${e.type} ${e.kind} ${e.namespace ? `${e.namespace}/` : ''}${e.name}${e.count > 1 ? ` (x${e.count})` : ''}`);
  if (t.dropped > 0) parts.push(`and ${t.dropped} more`);
  return parts.join(', ');
}

function useRecords(namespace: string | undefined, extraSelector?: string): { items: Entry[]; error?: Error; loading: boolean } {
  const { resources } = useApp();
  const events = resources.find((r) => r.group === '' && r.resource === 'events');
  const params = useMemo(() => ({ labelSelector: extraSelector ? `${CONTROLLER_LABEL},${extraSelector}` : CONTROLLER_LABEL }), [extraSelector]);
  const live = useLiveObjects<EventObject>(events ? collectionPath(events, namespace || undefined) : undefined, params);
  const items = useMemo(() => entries(live.items), [live.items]);
  return { items, error: live.error, loading: live.loading };
}

/**
 * Every controller's recent reconciles (built-in and operators built with the framework): why each ran,
 * how long it took, how it ended, and what it wrote, live, from the Events the framework publishes.
 */
export function Reconciles({ controller }: { controller?: string }) {
  const { namespace } = useApp();
  const { items, error, loading } = useRecords(namespace);
  const controllers = useMemo(() => {
    const counts = new Map<string, number>();
    for (const e of items) counts.set(e.record.controller, (counts.get(e.record.controller) ?? 0) + 1);
    return [...counts.entries()].sort(([a], [b]) => a.localeCompare(b));
  }, [items]);
  const shown = controller ? items.filter((e) => e.record.controller === controller) : items;
  return (
    <section aria-labelledby="reconciles-title">
      <h1 id="reconciles-title">
        Reconciles <span className="muted">{namespace ? `in ${namespace}` : 'in all namespaces'}</span>
      </h1>
      <p className="muted">Each reconcile of each controller, as the operator framework publishes it: its causes, duration, result and the writes it made.</p>
      {error && (
        <p role="alert" className="error">
          {error.message}
        </p>
      )}
      <nav aria-label="Controllers" className="chips">
        <a href="#/reconciles" aria-current={controller === undefined ? 'page' : undefined}>
          All ({items.length})
        </a>
        {controllers.map(([name, count]) => (
          <a key={name} href={`#/reconciles?controller=${encodeURIComponent(name)}`} aria-current={controller === name ? 'page' : undefined}>
            {name} ({count})
          </a>
        ))}
      </nav>
      {!loading && shown.length === 0 ? <p className="muted">No reconciles recorded yet.</p> : <RecordTable entries={shown} showController />}
    </section>
  );
}

/** The reconciles of one object. */
export function ObjectReconciles({ namespace, name, kind }: { namespace?: string; name: string; kind: string }) {
  const { items, error, loading } = useRecords(namespace ?? 'default');
  const own = items.filter((e) => e.record.name === name && e.kind === kind && (e.record.namespace ?? '') === (namespace ?? ''));
  const wrote = items.filter(
    (e) => !own.includes(e) && e.record.writes.some((w) => w.name === name && w.kind === kind && (w.namespace ?? '') === (namespace ?? '')),
  );
  if (error)
    return (
      <p role="alert" className="error">
        {error.message}
      </p>
    );
  return (
    <div>
      <h2>Reconciles of this object</h2>
      {!loading && own.length === 0 ? <p className="muted">none recorded</p> : <RecordTable entries={own} showController />}
      <h2>Reconciles that wrote it</h2>
      {!loading && wrote.length === 0 ? <p className="muted">none recorded</p> : <RecordTable entries={wrote} showController />}
    </div>
  );
}

function RecordTable({ entries, showController }: { entries: Entry[]; showController?: boolean }) {
  const { resources } = useApp();
  const link = (apiVersion: string | undefined, kind: string | undefined, namespace: string | undefined, name: string) => {
    const r: DiscoveredResource | undefined = resourceForKind(resources, apiVersion, kind);
    const text = `${kind ?? ''} ${namespace ? `${namespace}/` : ''}${name}`;
    return r ? <a href={objectHref(r, r.namespaced ? namespace : undefined, name)}>{text}</a> : text;
  };
  return (
    <table className="grid" data-testid="reconcile-table">
      <thead>
        <tr>
          <th>When</th>
          {showController && <th>Controller</th>}
          <th>Object</th>
          <th>Triggered by</th>
          <th>Duration</th>
          <th>Result</th>
          <th>Writes</th>
        </tr>
      </thead>
      <tbody>
        {entries.slice(0, 500).map(({ uid, kind, apiVersion, record }) => (
          <tr key={uid} className={record.result.includes('error') ? 'warning' : undefined}>
            <td>{age(record.startTime)} ago</td>
            {showController && <td>{record.controller}</td>}
            <td>{link(apiVersion, kind, record.namespace, record.name)}</td>
            <td data-testid="trigger">
              {triggerText(record.trigger)}
              {record.unrecordedBefore ? <span className="muted"> ({record.unrecordedBefore} earlier reconciles not recorded)</span> : null}
            </td>
            <td>{record.durationMs.toFixed(1)} ms</td>
            <td>
              {record.result}
              {record.requeueAfterMs !== undefined ? ` (after ${Math.round(record.requeueAfterMs / 1000)} s)` : ''}
              {record.error ? `: ${record.error}` : ''}
            </td>
            <td>
              {record.writes.length === 0 ? (
                <span className="muted">none</span>
              ) : (
                <ul className="writes">
                  {record.writes.map((w, i) => (
                    <li key={i}>
                      {w.verb} {link(w.apiVersion, w.kind, w.namespace, w.name)}
                      {w.resourceVersion ? <span className="muted"> @{w.resourceVersion}</span> : null}
                    </li>
                  ))}
                  {record.writesDropped ? <li className="muted">and {record.writesDropped} more</li> : null}
                </ul>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
