import { memo, useEffect, useMemo, useState } from 'react';
import { collectionPath, type DiscoveredResource } from '../api/discovery';
import { useApp } from '../state/app-context';
import { useLiveTable, type ObjectTableRow } from '../state/live';
import { listHref, objectHref } from '../state/route';
import { CreateButton } from './create';
import { cellText } from '../components/cells';

const PAGE_SIZES = [50, 100, 250, 500];

// One collator for every comparison: localeCompare with options builds one per call.
const collator = new Intl.Collator(undefined, { numeric: true });

type Sort = { column: number; descending: boolean };

/**
 * A live table of one resource: the server's own printer columns (the Table it answers with),
 * scoped to the namespace, filtered by label and field selectors (the server's) and by name (here),
 * sorted by any column, paged, and kept up to date by a watch of Tables.
 */
export function ResourceList({ resource, label, field }: { resource: DiscoveredResource; label?: string; field?: string }) {
  const { namespace } = useApp();
  const [labelDraft, setLabelDraft] = useState(label ?? '');
  const [fieldDraft, setFieldDraft] = useState(field ?? '');
  const [nameFilter, setNameFilter] = useState('');
  const [sort, setSort] = useState<Sort>({ column: 0, descending: false });
  const [pageSize, setPageSize] = useState(100);
  const [page, setPage] = useState(0);
  const [wide, setWide] = useState(false);
  useEffect(() => setLabelDraft(label ?? ''), [label]);
  useEffect(() => setFieldDraft(field ?? ''), [field]);
  const scoped = resource.namespaced && namespace !== '';
  const params = useMemo(() => ({ labelSelector: label, fieldSelector: field }), [label, field]);
  const path = collectionPath(resource, scoped ? namespace : undefined);
  const table = useLiveTable(path, params);

  // The first table of the session on screen: what the browser test times as the first view.
  useEffect(() => {
    if (!table.loading && performance.getEntriesByName('console-first-view').length === 0) performance.mark('console-first-view');
  }, [table.loading]);

  const visible = useMemo(() => table.columns.map((c, i) => ({ ...c, index: i })).filter((c) => wide || (c.priority ?? 0) === 0), [table.columns, wide]);
  const showNamespace = resource.namespaced && !scoped;
  const rows = useMemo(() => {
    const f = nameFilter.trim().toLowerCase();
    const filtered = f ? table.items.filter((r) => (r.object?.metadata?.name ?? '').toLowerCase().includes(f)) : table.items;
    const column = table.columns[sort.column];
    const numeric = column?.type === 'integer' || column?.type === 'number';
    // Each row's key computed once per sort, not once per comparison.
    const keyed = filtered.map((row) => ({
      row,
      key: sort.column === -1 ? (row.object?.metadata?.namespace ?? '') : numeric ? Number(row.cells[sort.column] ?? 0) : cellText(row.cells[sort.column]),
      name: row.object?.metadata?.name ?? '',
    }));
    keyed.sort((a, b) => {
      let c = typeof a.key === 'number' && typeof b.key === 'number' ? a.key - b.key : collator.compare(String(a.key), String(b.key));
      if (c === 0) c = collator.compare(a.name, b.name);
      return sort.descending ? -c : c;
    });
    return keyed.map((k) => k.row);
  }, [table.items, table.columns, nameFilter, sort]);
  const pages = Math.max(1, Math.ceil(rows.length / pageSize));
  const current = Math.min(page, pages - 1);
  const shown = rows.slice(current * pageSize, (current + 1) * pageSize);

  const applySelectors = () => {
    location.hash = listHref(resource, { label: labelDraft.trim() || undefined, field: fieldDraft.trim() || undefined });
  };
  const sortBy = (column: number) => setSort((s) => ({ column, descending: s.column === column ? !s.descending : false }));
  const ariaSort = (column: number) => (sort.column === column ? (sort.descending ? 'descending' : 'ascending') : undefined);

  return (
    <section aria-labelledby="list-title">
      <div className="heading">
        <h1 id="list-title">
          {resource.kind}
          <span className="muted"> {scoped ? `in ${namespace}` : resource.namespaced ? 'in all namespaces' : ''}</span>
        </h1>
        {resource.verbs.includes('patch') && <CreateButton kind={resource.kind} />}
      </div>
      <form
        className="filters"
        onSubmit={(e) => {
          e.preventDefault();
          applySelectors();
        }}
      >
        <label>
          Label selector
          <input value={labelDraft} onChange={(e) => setLabelDraft(e.target.value)} placeholder="app=web,tier!=db" />
        </label>
        <label>
          Field selector
          <input value={fieldDraft} onChange={(e) => setFieldDraft(e.target.value)} placeholder="status.phase=Running" />
        </label>
        <button type="submit">Apply selectors</button>
        <label>
          Name contains
          <input type="search" value={nameFilter} onChange={(e) => (setNameFilter(e.target.value), setPage(0))} />
        </label>
        <label className="check">
          <input type="checkbox" checked={wide} onChange={(e) => setWide(e.target.checked)} /> All columns
        </label>
      </form>
      {table.error && (
        <p role="alert" className="error" data-testid="list-error">
          {table.error.message}
        </p>
      )}
      <p className="muted" aria-live="polite" data-testid="list-count">
        {table.loading ? 'Loading...' : `${rows.length} ${rows.length === 1 ? 'item' : 'items'}`}
        {table.changes > 0 && <span data-testid="change-count"> · {table.changes} live changes</span>}
      </p>
      <div className="table-wrap">
        <table className="grid" data-testid="resource-table">
          <thead>
            <tr>
              {showNamespace && (
                <th aria-sort={ariaSort(-1)}>
                  <button type="button" onClick={() => sortBy(-1)}>
                    Namespace
                  </button>
                </th>
              )}
              {visible.map((c) => (
                <th key={c.name} aria-sort={ariaSort(c.index)} title={c.description}>
                  <button type="button" onClick={() => sortBy(c.index)}>
                    {c.name}
                  </button>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map((row) => (
              <Row
                key={row.object?.metadata?.uid ?? row.object?.metadata?.name}
                row={row}
                columns={visible}
                resource={resource}
                showNamespace={showNamespace}
              />
            ))}
          </tbody>
        </table>
      </div>
      {pages > 1 || rows.length > PAGE_SIZES[0] ? (
        <nav className="pager" aria-label="Pages">
          <button type="button" disabled={current === 0} onClick={() => setPage(current - 1)}>
            Previous
          </button>
          <span>
            Page {current + 1} of {pages}
          </span>
          <button type="button" disabled={current >= pages - 1} onClick={() => setPage(current + 1)}>
            Next
          </button>
          <label>
            Rows per page
            <select value={pageSize} onChange={(e) => (setPageSize(Number(e.target.value)), setPage(0))}>
              {PAGE_SIZES.map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </label>
        </nav>
      ) : null}
    </section>
  );
}

/** One row; re-rendered only when the watch brought a new version of it. */
const Row = memo(function Row({
  row,
  columns,
  resource,
  showNamespace,
}: {
  row: ObjectTableRow;
  columns: Array<{ name: string; format?: string; index: number }>;
  resource: DiscoveredResource;
  showNamespace: boolean;
}) {
  const meta = row.object?.metadata ?? {};
  return (
    <tr>
      {showNamespace && <td>{meta.namespace}</td>}
      {columns.map((c) =>
        c.format === 'name' || (c.index === 0 && c.name === 'Name') ? (
          <td key={c.name}>
            <a href={objectHref(resource, meta.namespace, meta.name ?? cellText(row.cells[c.index]))}>{cellText(row.cells[c.index])}</a>
          </td>
        ) : (
          <td key={c.name}>{cellText(row.cells[c.index])}</td>
        ),
      )}
    </tr>
  );
});
