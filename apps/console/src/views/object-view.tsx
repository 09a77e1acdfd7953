import { lazy, Suspense } from 'react';
import { collectionPath, type DiscoveredResource } from '../api/discovery';
import type { WireObject } from '../api/watch';
import { Tabs } from '../components/tabs';
import { age, cellText } from '../components/cells';
import { useApp } from '../state/app-context';
import { useLiveObject } from '../state/live';
import { objectHref } from '../state/route';
import { Actions } from './actions';
import { ObjectYaml } from './object-yaml';
import { ObjectEvents } from './object-events';
import { OwnerGraph } from './owner-graph';
import { Conditions, conditionsOf } from './conditions';
import { ManagedFields } from './managed-fields';
import { PodLogs } from './pod-logs';
import { NodePanel } from './node-panel';
import { Rollout, isRolloutKind } from './rollout';
import { ObjectReconciles } from './reconciles';

// The terminal (xterm.js) is most of the console's code: loaded when first opened.
const PodTerminal = lazy(() => import('./pod-terminal').then((m) => ({ default: m.PodTerminal })));

/** One object, live: its summary, YAML, events, owners, conditions, managed fields, and what its kind adds. */
export function ObjectView({ resource, namespace, name, tab }: { resource: DiscoveredResource; namespace?: string; name: string; tab: string }) {
  const live = useLiveObject(collectionPath(resource, namespace), name);
  const object = live.object;
  const isPod = resource.group === '' && resource.kind === 'Pod';
  const isNode = resource.group === '' && resource.kind === 'Node';
  const tabs = [
    { id: 'summary', title: 'Summary' },
    ...(isRolloutKind(resource) ? [{ id: 'rollout', title: 'Rollout' }] : []),
    ...(isNode ? [{ id: 'node', title: 'Node' }] : []),
    ...(isPod ? [{ id: 'logs', title: 'Logs' }] : []),
    ...(isPod ? [{ id: 'terminal', title: 'Terminal' }] : []),
    { id: 'yaml', title: 'YAML' },
    { id: 'events', title: 'Events' },
    { id: 'reconciles', title: 'Reconciles' },
    { id: 'owners', title: 'Owners' },
    { id: 'conditions', title: 'Conditions' },
    { id: 'managed', title: 'Managed fields' },
  ];
  const current = tabs.some((t) => t.id === tab) ? tab : 'summary';
  return (
    <section aria-labelledby="object-title">
      <div className="heading">
        <h1 id="object-title">
          <span className="muted">{resource.kind} </span>
          {name}
          {namespace && <span className="muted"> in {namespace}</span>}
        </h1>
        {object && <Actions resource={resource} object={object} />}
      </div>
      {live.error && (
        <p role="alert" className="error" data-testid="object-error">
          {live.error.message}
        </p>
      )}
      {!live.loading && !object && !live.error && <p role="status">This {resource.kind} does not exist (any more).</p>}
      <Tabs label={`${resource.kind} views`} tabs={tabs} current={current} href={(id) => objectHref(resource, namespace, name, id)} />
      <div id="tab-panel" role="tabpanel" aria-labelledby={`tab-${current}`} className="panel">
        {object && current === 'summary' && <Summary object={object} />}
        {object && current === 'rollout' && <Rollout resource={resource} object={object} />}
        {object && current === 'node' && <NodePanel node={object} />}
        {object && current === 'logs' && <PodLogs pod={object} />}
        {object && current === 'terminal' && (
          <Suspense fallback={<p aria-live="polite">Loading the terminal...</p>}>
            <PodTerminal pod={object} />
          </Suspense>
        )}
        {object && current === 'yaml' && <ObjectYaml object={object} />}
        {current === 'events' && <ObjectEvents resource={resource} namespace={namespace} name={name} uid={object?.metadata.uid} />}
        {current === 'reconciles' && <ObjectReconciles namespace={namespace} name={name} kind={resource.kind} />}
        {object && current === 'owners' && <OwnerGraph object={object} />}
        {object && current === 'conditions' && <Conditions object={object} history={live.history} />}
        {object && current === 'managed' && <ManagedFields object={object} />}
      </div>
    </section>
  );
}

function Summary({ object }: { object: WireObject }) {
  const { resources } = useApp();
  const meta = object.metadata;
  const status = (object as { status?: Record<string, unknown> }).status;
  const conditions = conditionsOf(object);
  return (
    <div className="summary">
      <dl>
        <dt>Created</dt>
        <dd>
          {meta.creationTimestamp} ({age(meta.creationTimestamp)} ago)
        </dd>
        <dt>UID</dt>
        <dd>{meta.uid}</dd>
        <dt>Resource version</dt>
        <dd>{meta.resourceVersion}</dd>
        {meta.deletionTimestamp && (
          <>
            <dt>Deleting since</dt>
            <dd>{meta.deletionTimestamp}</dd>
          </>
        )}
        <dt>Owners</dt>
        <dd>
          {(meta.ownerReferences ?? []).length === 0
            ? 'none'
            : (meta.ownerReferences ?? []).map((o) => {
                const r = resources.find((x) => x.kind === o.kind && (x.group ? `${x.group}/${x.version}` : x.version) === o.apiVersion);
                return (
                  <span key={o.uid} className="chip">
                    {r ? <a href={objectHref(r, r.namespaced ? meta.namespace : undefined, o.name)}>{`${o.kind}/${o.name}`}</a> : `${o.kind}/${o.name}`}
                  </span>
                );
              })}
        </dd>
      </dl>
      <h2>Labels</h2>
      <KeyValues values={meta.labels} testId="labels" />
      <h2>Annotations</h2>
      <KeyValues values={meta.annotations} testId="annotations" />
      {conditions.length > 0 && (
        <>
          <h2>Conditions</h2>
          <table className="grid">
            <thead>
              <tr>
                <th>Type</th>
                <th>Status</th>
                <th>Reason</th>
                <th>Message</th>
                <th>Since</th>
              </tr>
            </thead>
            <tbody>
              {conditions.map((c) => (
                <tr key={c.type}>
                  <td>{c.type}</td>
                  <td>{c.status}</td>
                  <td>{c.reason}</td>
                  <td>{c.message}</td>
                  <td>{age(c.lastTransitionTime)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {status && (
        <>
          <h2>Status</h2>
          <dl>
            {Object.entries(status)
              .filter(([k, v]) => k !== 'conditions' && (typeof v !== 'object' || v === null))
              .map(([k, v]) => (
                <div key={k} className="pair">
                  <dt>{k}</dt>
                  <dd>{cellText(v)}</dd>
                </div>
              ))}
          </dl>
        </>
      )}
    </div>
  );
}

/** Labels and annotations, as text whatever they hold. */
function KeyValues({ values, testId }: { values?: Record<string, string>; testId: string }) {
  const entries = Object.entries(values ?? {});
  if (entries.length === 0) return <p className="muted">none</p>;
  return (
    <ul className="kv" data-testid={testId}>
      {entries.map(([k, v]) => (
        <li key={k}>
          <code>{k}</code>
          <span>=</span>
          <code>{v}</code>
        </li>
      ))}
    </ul>
  );
}
