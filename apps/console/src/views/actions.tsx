import { useState } from 'react';
import { api, errorText } from '../api/client';
import { collectionPath, objectPath, type DiscoveredResource } from '../api/discovery';
import { listAll, type WireObject } from '../api/watch';
import { Dialog } from '../components/dialog';
import { resourceOfKind, useApp } from '../state/app-context';
import { listHref } from '../state/route';
import { isRolloutKind, selectorString } from './rollout';

const MERGE = 'application/merge-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';

/**
 * What a user can do to the object, each a request under their own identity: a denial comes back
 * as the server's Status and is shown as it says.
 */
export function Actions({ resource, object }: { resource: DiscoveredResource; object: WireObject }) {
  const { resources, notify } = useApp();
  const [dialog, setDialog] = useState<'scale' | 'delete' | undefined>();
  const [replicas, setReplicas] = useState('');
  const [busy, setBusy] = useState(false);
  const namespace = object.metadata.namespace;
  const name = object.metadata.name ?? '';
  const path = objectPath(resource, resource.namespaced ? namespace : undefined, name);
  const isNode = resource.group === '' && resource.kind === 'Node';
  const run = async (what: string, action: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await action();
      notify(what);
      return true;
    } catch (error) {
      notify(errorText(error), 'error');
      return false;
    } finally {
      setBusy(false);
    }
  };
  const scale = () =>
    run(`${resource.kind} ${name} scaled to ${replicas}`, () =>
      api(`${path}/scale`, { method: 'PATCH', body: { spec: { replicas: Number(replicas) } }, contentType: MERGE }),
    ).then((ok) => ok && setDialog(undefined));
  const remove = () =>
    run(`${resource.kind} ${name} deleted`, () =>
      api(path, { method: 'DELETE', body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' } }),
    ).then((ok) => {
      if (!ok) return;
      setDialog(undefined);
      location.hash = listHref(resource);
    });
  const cordon = (unschedulable: boolean) =>
    run(`Node ${name} ${unschedulable ? 'cordoned' : 'uncordoned'}`, () =>
      api(path, { method: 'PATCH', body: { spec: { unschedulable } }, contentType: MERGE }),
    );
  const drain = () => run(`Node ${name} drained`, () => drainNode(name));
  const restart = () =>
    run(`${resource.kind} ${name} restarting`, () =>
      api(path, {
        method: 'PATCH',
        body: { spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': new Date().toISOString() } } } } },
        contentType: STRATEGIC,
      }),
    );
  const undo = () => run(`${resource.kind} ${name} rolled back`, () => rollBack(resources, resource, object, path));
  return (
    <div className="actions" role="group" aria-label="Actions">
      {resource.subresources.includes('scale') && (
        <button
          type="button"
          disabled={busy}
          onClick={() => {
            setReplicas(String((object as { spec?: { replicas?: number } }).spec?.replicas ?? 1));
            setDialog('scale');
          }}
        >
          Scale
        </button>
      )}
      {isRolloutKind(resource) && (
        <>
          <button type="button" disabled={busy} onClick={() => void restart()}>
            Restart
          </button>
          <button type="button" disabled={busy} onClick={() => void undo()}>
            Undo rollout
          </button>
        </>
      )}
      {isNode && (
        <>
          <button type="button" disabled={busy} onClick={() => void cordon(!(object as { spec?: { unschedulable?: boolean } }).spec?.unschedulable)}>
            {(object as { spec?: { unschedulable?: boolean } }).spec?.unschedulable ? 'Uncordon' : 'Cordon'}
          </button>
          <button type="button" disabled={busy} onClick={() => void drain()}>
            Drain
          </button>
        </>
      )}
      {resource.verbs.includes('delete') && (
        <button type="button" className="danger" disabled={busy} onClick={() => setDialog('delete')}>
          Delete
        </button>
      )}
      <Dialog title={`Scale ${resource.kind} ${name}`} open={dialog === 'scale'} onClose={() => setDialog(undefined)}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void scale();
          }}
        >
          <label htmlFor="replicas">Replicas</label>
          <input id="replicas" type="number" min={0} value={replicas} onChange={(e) => setReplicas(e.target.value)} />
          <div className="row">
            <button type="submit" disabled={busy}>
              Scale
            </button>
            <button type="button" onClick={() => setDialog(undefined)}>
              Cancel
            </button>
          </div>
        </form>
      </Dialog>
      <Dialog title={`Delete ${resource.kind} ${name}?`} open={dialog === 'delete'} onClose={() => setDialog(undefined)}>
        <p>Its dependents are deleted after it by the garbage collector.</p>
        <div className="row">
          <button type="button" className="danger" disabled={busy} onClick={() => void remove()}>
            Delete
          </button>
          <button type="button" onClick={() => setDialog(undefined)}>
            Cancel
          </button>
        </div>
      </Dialog>
    </div>
  );
}

/** As `kubectl drain`: cordon, then evict every pod on the node but DaemonSet and mirror pods. */
async function drainNode(node: string): Promise<void> {
  await api(`/api/v1/nodes/${encodeURIComponent(node)}`, { method: 'PATCH', body: { spec: { unschedulable: true } }, contentType: MERGE });
  const pods = await listAll<WireObject>('/api/v1/pods', { fieldSelector: `spec.nodeName=${node}` });
  const failures: string[] = [];
  for (const pod of pods.items) {
    const daemon = (pod.metadata.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet' && o.controller);
    const mirror = pod.metadata.annotations?.['kubernetes.io/config.mirror'] !== undefined;
    if (daemon || mirror) continue;
    const { namespace, name } = pod.metadata;
    try {
      await api(`/api/v1/namespaces/${encodeURIComponent(namespace ?? '')}/pods/${encodeURIComponent(name ?? '')}/eviction`, {
        method: 'POST',
        body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace } },
      });
    } catch (error) {
      failures.push(`${namespace}/${name}: ${errorText(error)}`);
    }
  }
  if (failures.length > 0) throw new Error(`cordoned, but not every pod could be evicted: ${failures.join('; ')}`);
}

/** As `kubectl rollout undo`: the template of the revision before the current one, written back. */
async function rollBack(resources: DiscoveredResource[], resource: DiscoveredResource, object: WireObject, path: string): Promise<void> {
  const namespace = object.metadata.namespace;
  const selector = selectorString((object as { spec?: { selector?: never } }).spec?.selector);
  const owned = (o: WireObject) => (o.metadata.ownerReferences ?? []).some((r) => r.uid === object.metadata.uid);
  if (resource.kind === 'Deployment') {
    const rsResource = resourceOfKind(resources, 'apps', 'ReplicaSet');
    if (!rsResource) throw new Error('this server serves no ReplicaSets');
    const sets = (
      await listAll<WireObject & { spec?: { template?: WireObject } }>(collectionPath(rsResource, namespace), { labelSelector: selector })
    ).items.filter(owned);
    const revision = (o: WireObject) => Number(o.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? 0);
    sets.sort((a, b) => revision(b) - revision(a));
    const previous = sets[1];
    if (!previous?.spec?.template) throw new Error(`no rollout history found for deployment "${object.metadata.name}"`);
    const template = structuredClone(previous.spec.template);
    delete template.metadata.labels?.['pod-template-hash'];
    await api(path, { method: 'PATCH', body: [{ op: 'replace', path: '/spec/template', value: template }], contentType: JSON_PATCH });
    return;
  }
  const revResource = resourceOfKind(resources, 'apps', 'ControllerRevision');
  if (!revResource) throw new Error('this server serves no ControllerRevisions');
  const revisions = (
    await listAll<WireObject & { revision?: number; data?: unknown }>(collectionPath(revResource, namespace), { labelSelector: selector })
  ).items.filter(owned);
  revisions.sort((a, b) => (b.revision ?? 0) - (a.revision ?? 0));
  const previous = revisions[1];
  if (!previous?.data) throw new Error(`no rollout history found for ${resource.kind.toLowerCase()} "${object.metadata.name}"`);
  await api(path, { method: 'PATCH', body: previous.data, contentType: STRATEGIC });
}
