import { useMemo, useState } from 'react';
import type { DiscoveredResource } from '../api/discovery';
import { useApp } from '../state/app-context';
import { listHref, type Route } from '../state/route';

/** What people open most, first; then every listable resource of every group, found by discovery. */
const FIRST: Array<[string, string]> = [
  ['', 'pods'],
  ['apps', 'deployments'],
  ['apps', 'statefulsets'],
  ['apps', 'daemonsets'],
  ['apps', 'replicasets'],
  ['', 'services'],
  ['', 'nodes'],
  ['', 'events'],
  ['', 'namespaces'],
];

function label(r: DiscoveredResource): string {
  return r.kind;
}

export function Sidebar({ route }: { route: Route }) {
  const { resources } = useApp();
  const [filter, setFilter] = useState('');
  const listable = useMemo(() => {
    const groups = new Set(resources.map((r) => r.group));
    // A group served under both its Kubernetes name and the spec's svc.io one is the same storage: listed once.
    return resources.filter(
      (r) => r.preferred && r.verbs.includes('list') && !(r.group.endsWith('.svc.io') && groups.has(r.group.replace(/\.svc\.io$/, '.k8s.io'))),
    );
  }, [resources]);
  const first = FIRST.map(([g, res]) => listable.find((r) => r.group === g && r.resource === res)).filter((r): r is DiscoveredResource => r !== undefined);
  const groups = useMemo(() => {
    const byGroup = new Map<string, DiscoveredResource[]>();
    const f = filter.trim().toLowerCase();
    for (const r of listable) {
      if (f && !`${r.kind} ${r.resource} ${r.group} ${r.shortNames.join(' ')}`.toLowerCase().includes(f)) continue;
      const list = byGroup.get(r.group) ?? [];
      list.push(r);
      byGroup.set(r.group, list);
    }
    return [...byGroup.entries()].sort(([a], [b]) => a.localeCompare(b));
  }, [listable, filter]);
  const current = (r: DiscoveredResource) => (route.view === 'list' || route.view === 'object') && route.group === r.group && route.resource === r.resource;
  const link = (r: DiscoveredResource) => (
    <li key={`${r.group}/${r.resource}`}>
      <a href={listHref(r)} aria-current={current(r) ? 'page' : undefined}>
        {label(r)}
      </a>
    </li>
  );
  return (
    <nav className="side" aria-label="Views">
      <ul>
        <li>
          <a href="#/" aria-current={route.view === 'overview' ? 'page' : undefined}>
            Control plane
          </a>
        </li>
        <li>
          <a href="#/reconciles" aria-current={route.view === 'reconciles' ? 'page' : undefined}>
            Reconciles
          </a>
        </li>
      </ul>
      <h2>Workloads</h2>
      <ul>{first.map(link)}</ul>
      <h2>
        <label htmlFor="resource-filter">All resources</label>
      </h2>
      <input id="resource-filter" type="search" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="filter" />
      {groups.map(([group, list]) => (
        <div key={group || 'core'}>
          <h3>{group || 'core'}</h3>
          <ul>{list.sort((a, b) => a.kind.localeCompare(b.kind)).map(link)}</ul>
        </div>
      ))}
    </nav>
  );
}
