import type { WireObject } from '../api/watch';
import { age } from '../components/cells';

interface ManagedEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  subresource?: string;
  fieldsV1?: Record<string, unknown>;
}

/** The paths of a fieldsV1 set: `f:spec` → `.spec`, `k:{"name":"x"}` → `[name=x]`, `v:"a"` → `[="a"]`. */
export function fieldPaths(set: Record<string, unknown> | undefined, prefix = ''): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(set ?? {})) {
    if (key === '.') continue;
    let part: string;
    if (key.startsWith('f:')) part = `.${key.slice(2)}`;
    else if (key.startsWith('k:')) {
      try {
        part = `[${Object.entries(JSON.parse(key.slice(2)) as Record<string, unknown>)
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(',')}]`;
      } catch {
        part = `[${key.slice(2)}]`;
      }
    } else if (key.startsWith('v:')) part = `[=${key.slice(2)}]`;
    else if (key.startsWith('i:')) part = `[${key.slice(2)}]`;
    else part = `.${key}`;
    const path = prefix + part;
    const children = value && typeof value === 'object' ? fieldPaths(value as Record<string, unknown>, path) : [];
    if (children.length === 0 || (value as Record<string, unknown>)['.'] !== undefined) out.push(path);
    out.push(...children);
  }
  return out;
}

/** Who set what and when: each field manager, its operation and time, and the fields it owns. */
export function ManagedFields({ object }: { object: WireObject }) {
  const entries = (object.metadata.managedFields ?? []) as ManagedEntry[];
  if (entries.length === 0) return <p className="muted">No managed fields recorded.</p>;
  return (
    <table className="grid managed" data-testid="managed-fields">
      <thead>
        <tr>
          <th>Manager</th>
          <th>Operation</th>
          <th>Subresource</th>
          <th>When</th>
          <th>API version</th>
          <th>Fields</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((e, i) => (
          <tr key={i}>
            <td>{e.manager}</td>
            <td>{e.operation}</td>
            <td>{e.subresource ?? ''}</td>
            <td>
              {e.time} ({age(e.time)} ago)
            </td>
            <td>{e.apiVersion}</td>
            <td>
              <ul className="paths">
                {fieldPaths(e.fieldsV1).map((p) => (
                  <li key={p}>
                    <code>{p}</code>
                  </li>
                ))}
              </ul>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
