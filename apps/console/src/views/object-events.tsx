import { useMemo } from 'react';
import { collectionPath, type DiscoveredResource } from '../api/discovery';
import type { WireObject } from '../api/watch';
import { age } from '../components/cells';
import { useApp } from '../state/app-context';
import { useLiveObjects } from '../state/live';

export interface EventObject extends WireObject {
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
  eventTime?: string;
  source?: { component?: string };
  reportingComponent?: string;
  involvedObject?: { apiVersion?: string; kind?: string; name?: string; namespace?: string; uid?: string };
  series?: { count?: number; lastObservedTime?: string };
}

export function eventTime(e: EventObject): string {
  return e.series?.lastObservedTime ?? e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata.creationTimestamp ?? '';
}

/** The events about one object, newest first, live. */
export function ObjectEvents({ resource, namespace, name, uid }: { resource: DiscoveredResource; namespace?: string; name: string; uid?: string }) {
  const { resources } = useApp();
  const events = resources.find((r) => r.group === '' && r.resource === 'events');
  const params = useMemo(() => ({ fieldSelector: `involvedObject.kind=${resource.kind},involvedObject.name=${name}` }), [resource.kind, name]);
  const live = useLiveObjects<EventObject>(events ? collectionPath(events, namespace ?? 'default') : undefined, params);
  const items = live.items
    .filter((e) => !uid || !e.involvedObject?.uid || e.involvedObject.uid === uid)
    .sort((a, b) => eventTime(b).localeCompare(eventTime(a)));
  if (live.error)
    return (
      <p role="alert" className="error">
        {live.error.message}
      </p>
    );
  if (!live.loading && items.length === 0) return <p className="muted">No events.</p>;
  return (
    <table className="grid" data-testid="events-table">
      <thead>
        <tr>
          <th>Age</th>
          <th>Type</th>
          <th>Reason</th>
          <th>From</th>
          <th>Count</th>
          <th>Message</th>
        </tr>
      </thead>
      <tbody>
        {items.map((e) => (
          <tr key={e.metadata.uid} className={e.type === 'Warning' ? 'warning' : undefined}>
            <td>{age(eventTime(e))}</td>
            <td>{e.type}</td>
            <td>{e.reason}</td>
            <td>{e.source?.component || e.reportingComponent}</td>
            <td>{e.series?.count ?? e.count ?? 1}</td>
            <td>{e.message}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
