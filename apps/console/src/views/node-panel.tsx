import { useMemo } from 'react';
import type { WireObject } from '../api/watch';
import { age } from '../components/cells';
import { formatQuantity, parseQuantity } from '../components/quantity';
import { useApp, resourceOfKind } from '../state/app-context';
import { useLiveObjects } from '../state/live';
import { objectHref } from '../state/route';
import { conditionsOf } from './conditions';

interface PodShape extends WireObject {
  spec?: { containers?: Array<{ resources?: { requests?: Record<string, string>; limits?: Record<string, string> } }> };
  status?: { phase?: string };
}

interface NodeShape extends WireObject {
  spec?: { taints?: Array<{ key: string; value?: string; effect: string }>; unschedulable?: boolean; podCIDR?: string };
  status?: {
    capacity?: Record<string, string>;
    allocatable?: Record<string, string>;
    nodeInfo?: Record<string, string>;
    addresses?: Array<{ type: string; address: string }>;
  };
}

/** A node: capacity, what its pods request of it, taints, conditions, and its pods, live. */
export function NodePanel({ node }: { node: WireObject }) {
  const { resources } = useApp();
  const n = node as NodeShape;
  const params = useMemo(() => ({ fieldSelector: `spec.nodeName=${node.metadata.name ?? ''}` }), [node.metadata.name]);
  const pods = useLiveObjects<PodShape>('/api/v1/pods', params);
  const running = pods.items.filter((p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed');
  const requested = (kind: 'requests' | 'limits', resource: string) =>
    running.reduce((sum, p) => sum + (p.spec?.containers ?? []).reduce((s, c) => s + parseQuantity(c.resources?.[kind]?.[resource]), 0), 0);
  const names = [...new Set([...Object.keys(n.status?.capacity ?? {}), ...Object.keys(n.status?.allocatable ?? {})])].sort();
  const podResource = resourceOfKind(resources, '', 'Pod');
  return (
    <div>
      <p>
        {n.spec?.unschedulable ? <strong>Cordoned: no new pods are scheduled here.</strong> : 'Schedulable.'} Pod CIDR {n.spec?.podCIDR ?? 'none'};{' '}
        {(n.status?.addresses ?? []).map((a) => `${a.type} ${a.address}`).join(', ')}
      </p>
      <h2>Capacity and requests</h2>
      <table className="grid" data-testid="node-capacity">
        <thead>
          <tr>
            <th>Resource</th>
            <th>Capacity</th>
            <th>Allocatable</th>
            <th>Requested</th>
            <th>Limits</th>
          </tr>
        </thead>
        <tbody>
          {names.map((r) => {
            const allocatable = parseQuantity(n.status?.allocatable?.[r]);
            const req = r === 'pods' ? running.length : requested('requests', r);
            return (
              <tr key={r}>
                <td>{r}</td>
                <td>{n.status?.capacity?.[r]}</td>
                <td>{n.status?.allocatable?.[r]}</td>
                <td>
                  {formatQuantity(r, req)}
                  {allocatable > 0 ? ` (${Math.round((req / allocatable) * 100)}%)` : ''}
                </td>
                <td>{r === 'pods' ? '' : formatQuantity(r, requested('limits', r))}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <h2>Taints</h2>
      {(n.spec?.taints ?? []).length === 0 ? (
        <p className="muted">none</p>
      ) : (
        <ul>
          {(n.spec?.taints ?? []).map((t, i) => (
            <li key={i}>
              <code>{`${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`}</code>
            </li>
          ))}
        </ul>
      )}
      <h2>Conditions</h2>
      <table className="grid">
        <thead>
          <tr>
            <th>Type</th>
            <th>Status</th>
            <th>Reason</th>
            <th>Last heartbeat</th>
            <th>Message</th>
          </tr>
        </thead>
        <tbody>
          {conditionsOf(node).map((c) => (
            <tr key={c.type}>
              <td>{c.type}</td>
              <td>{c.status}</td>
              <td>{c.reason}</td>
              <td>{age(c.lastHeartbeatTime)}</td>
              <td>{c.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Pods ({running.length})</h2>
      {pods.error && (
        <p role="alert" className="error">
          {pods.error.message}
        </p>
      )}
      <ul>
        {pods.items.map((p) => (
          <li key={p.metadata.uid}>
            {podResource ? (
              <a href={objectHref(podResource, p.metadata.namespace, p.metadata.name ?? '')}>{`${p.metadata.namespace}/${p.metadata.name}`}</a>
            ) : (
              p.metadata.name
            )}{' '}
            <span className="muted">{p.status?.phase}</span>
          </li>
        ))}
      </ul>
      <h2>System</h2>
      <dl>
        {Object.entries(n.status?.nodeInfo ?? {}).map(([k, v]) => (
          <div key={k} className="pair">
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
    </div>
  );
}
