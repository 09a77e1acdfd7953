import { useMemo } from 'react';
import { collectionPath, type DiscoveredResource } from '../api/discovery';
import type { WireObject } from '../api/watch';
import { age } from '../components/cells';
import { resourceOfKind, useApp } from '../state/app-context';
import { useLiveObjects } from '../state/live';
import { objectHref } from '../state/route';
import { conditionsOf } from './conditions';

const ROLLOUT_KINDS = ['Deployment', 'StatefulSet', 'DaemonSet'];

export function isRolloutKind(r: Pick<DiscoveredResource, 'group' | 'kind'>): boolean {
  return r.group === 'apps' && ROLLOUT_KINDS.includes(r.kind);
}

interface Selector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

/** A label selector as the query string form the API reads. */
export function selectorString(selector: Selector | undefined): string {
  const parts = Object.entries(selector?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of selector?.matchExpressions ?? []) {
    if (e.operator === 'In') parts.push(`${e.key} in (${(e.values ?? []).join(',')})`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin (${(e.values ?? []).join(',')})`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else if (e.operator === 'DoesNotExist') parts.push(`!${e.key}`);
  }
  return parts.join(',');
}

interface Workload extends WireObject {
  spec?: {
    replicas?: number;
    selector?: Selector;
    updateStrategy?: { type?: string; rollingUpdate?: { partition?: number } };
  };
  status?: Record<string, number | string | undefined> & { observedGeneration?: number };
}

/** What `kubectl rollout status` prints for this workload now, and whether the rollout is over. */
export function rolloutStatus(kind: string, w: Workload): { message: string; done: boolean } {
  const s = w.status ?? {};
  const n = (key: string) => Number(s[key] ?? 0);
  const name = w.metadata.name ?? '';
  const generation = w.metadata.generation ?? 0;
  const observed = Number(s.observedGeneration ?? 0);
  if (kind === 'Deployment') {
    if (generation > observed) return { message: 'Waiting for deployment spec update to be observed...', done: false };
    const progressing = conditionsOf(w).find((c) => c.type === 'Progressing');
    if (progressing?.reason === 'ProgressDeadlineExceeded') return { message: `deployment "${name}" exceeded its progress deadline`, done: false };
    const replicas = w.spec?.replicas ?? 1;
    if (n('updatedReplicas') < replicas)
      return {
        message: `Waiting for deployment "${name}" rollout to finish: ${n('updatedReplicas')} out of ${replicas} new replicas have been updated...`,
        done: false,
      };
    if (n('replicas') > n('updatedReplicas'))
      return {
        message: `Waiting for deployment "${name}" rollout to finish: ${n('replicas') - n('updatedReplicas')} old replicas are pending termination...`,
        done: false,
      };
    if (n('availableReplicas') < n('updatedReplicas'))
      return {
        message: `Waiting for deployment "${name}" rollout to finish: ${n('availableReplicas')} of ${n('updatedReplicas')} updated replicas are available...`,
        done: false,
      };
    return { message: `deployment "${name}" successfully rolled out`, done: true };
  }
  if (kind === 'DaemonSet') {
    if (w.spec?.updateStrategy?.type && w.spec.updateStrategy.type !== 'RollingUpdate')
      return { message: 'rollout status is only available for RollingUpdate strategy type', done: false };
    if (generation > observed) return { message: 'Waiting for daemon set spec update to be observed...', done: false };
    if (n('updatedNumberScheduled') < n('desiredNumberScheduled'))
      return {
        message: `Waiting for daemon set "${name}" rollout to finish: ${n('updatedNumberScheduled')} out of ${n('desiredNumberScheduled')} new pods have been updated...`,
        done: false,
      };
    if (n('numberAvailable') < n('desiredNumberScheduled'))
      return {
        message: `Waiting for daemon set "${name}" rollout to finish: ${n('numberAvailable')} of ${n('desiredNumberScheduled')} updated pods are available...`,
        done: false,
      };
    return { message: `daemon set "${name}" successfully rolled out`, done: true };
  }
  if (w.spec?.updateStrategy?.type && w.spec.updateStrategy.type !== 'RollingUpdate')
    return { message: 'rollout status is only available for RollingUpdate strategy type', done: false };
  if (observed === 0 || generation > observed) return { message: 'Waiting for statefulset spec update to be observed...', done: false };
  const replicas = w.spec?.replicas ?? 1;
  if (n('readyReplicas') < replicas) return { message: `Waiting for ${replicas - n('readyReplicas')} pods to be ready...`, done: false };
  const partition = w.spec?.updateStrategy?.rollingUpdate?.partition;
  if (partition !== undefined && partition > 0) {
    if (n('updatedReplicas') < replicas - partition)
      return {
        message: `Waiting for partitioned roll out to finish: ${n('updatedReplicas')} out of ${replicas - partition} new pods have been updated...`,
        done: false,
      };
    return { message: `partitioned roll out complete: ${n('updatedReplicas')} new pods have been updated...`, done: true };
  }
  if (s.updateRevision !== s.currentRevision)
    return {
      message: `waiting for statefulset rolling update to complete ${n('updatedReplicas')} pods at revision ${String(s.updateRevision)}...`,
      done: false,
    };
  return { message: `statefulset rolling update complete ${n('currentReplicas')} pods at revision ${String(s.currentRevision)}...`, done: true };
}

interface PodShape extends WireObject {
  status?: { phase?: string; conditions?: Array<{ type: string; status: string }>; containerStatuses?: Array<{ ready?: boolean; restartCount?: number }> };
}

function podReady(p: PodShape): boolean {
  return (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/**
 * A rollout as it happens: the workload's revisions (a Deployment's ReplicaSets, a StatefulSet's or
 * DaemonSet's ControllerRevisions) and each revision's pods as they are created, become ready and go,
 * with the line `kubectl rollout status` prints. Everything comes from watches.
 */
export function Rollout({ resource, object }: { resource: DiscoveredResource; object: WireObject }) {
  const { resources } = useApp();
  const w = object as Workload;
  const namespace = object.metadata.namespace;
  const selector = selectorString(w.spec?.selector);
  const params = useMemo(() => ({ labelSelector: selector || undefined }), [selector]);
  const isDeployment = resource.kind === 'Deployment';
  const revisionResource = isDeployment ? resourceOfKind(resources, 'apps', 'ReplicaSet') : resourceOfKind(resources, 'apps', 'ControllerRevision');
  const podResource = resourceOfKind(resources, '', 'Pod');
  const revisions = useLiveObjects(revisionResource ? collectionPath(revisionResource, namespace) : undefined, params);
  const pods = useLiveObjects<PodShape>(podResource ? collectionPath(podResource, namespace) : undefined, params);
  const uid = object.metadata.uid;
  const owned = revisions.items.filter((r) => (r.metadata.ownerReferences ?? []).some((o) => o.uid === uid));
  const revisionOf = (r: WireObject) =>
    Number(isDeployment ? (r.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? 0) : ((r as { revision?: number }).revision ?? 0));
  owned.sort((a, b) => revisionOf(b) - revisionOf(a));
  const hashLabel = isDeployment ? 'pod-template-hash' : 'controller-revision-hash';
  const hashOf = (r: WireObject) => (isDeployment ? r.metadata.labels?.['pod-template-hash'] : r.metadata.name);
  const status = rolloutStatus(resource.kind, w);
  const s = w.status ?? {};
  return (
    <div>
      <p className={status.done ? 'ok' : 'progress'} role="status" data-testid="rollout-status">
        {status.message}
      </p>
      <dl className="figures">
        {Object.entries(s)
          .filter(([, v]) => typeof v === 'number')
          .map(([k, v]) => (
            <div key={k} className="pair">
              <dt>{k}</dt>
              <dd>{String(v)}</dd>
            </div>
          ))}
      </dl>
      {(revisions.error || pods.error) && (
        <p role="alert" className="error">
          {(revisions.error ?? pods.error)?.message}
        </p>
      )}
      {owned.map((rev) => {
        const hash = hashOf(rev);
        const own = pods.items
          .filter((p) => (hash ? p.metadata.labels?.[hashLabel] === hash : false) || (p.metadata.ownerReferences ?? []).some((o) => o.uid === rev.metadata.uid))
          .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
        const rs = rev as { spec?: { replicas?: number }; status?: { replicas?: number; readyReplicas?: number; availableReplicas?: number } };
        return (
          <section key={rev.metadata.uid} className="revision" aria-label={`Revision ${revisionOf(rev)}`}>
            <h2>
              Revision {revisionOf(rev)}{' '}
              {revisionResource ? <a href={objectHref(revisionResource, namespace, rev.metadata.name ?? '')}>{rev.metadata.name}</a> : rev.metadata.name}
              {isDeployment && (
                <span className="muted">
                  {' '}
                  desired {rs.spec?.replicas ?? 0}, current {rs.status?.replicas ?? 0}, ready {rs.status?.readyReplicas ?? 0}, available{' '}
                  {rs.status?.availableReplicas ?? 0}
                </span>
              )}
            </h2>
            {own.length === 0 ? (
              <p className="muted">no pods</p>
            ) : (
              <ul className="pods" data-testid={`revision-${revisionOf(rev)}-pods`}>
                {own.map((p) => {
                  const ready = podReady(p);
                  const going = Boolean(p.metadata.deletionTimestamp);
                  return (
                    <li key={p.metadata.uid} className={going ? 'going' : ready ? 'ready' : 'starting'}>
                      {podResource ? <a href={objectHref(podResource, namespace, p.metadata.name ?? '')}>{p.metadata.name}</a> : p.metadata.name}{' '}
                      <span className="state">{going ? 'terminating' : ready ? 'ready' : (p.status?.phase ?? 'Pending').toLowerCase()}</span>{' '}
                      <span className="muted">{age(p.metadata.creationTimestamp)}</span>
                    </li>
                  );
                })}
              </ul>
            )}
          </section>
        );
      })}
    </div>
  );
}
