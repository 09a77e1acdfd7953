import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '@svc/api';
import type { Client } from '@svc/client';
import { VolumeAssumeCache } from '../cache/volume-assume-cache';
import { Framework } from '../framework/framework';
import { clusterOf, cycleFor, filterNodes, testNode, testPod } from '../testing/plugin-fixtures';
import { ERR_UNBOUND_IMMEDIATE, ERR_VOLUME_BIND_CONFLICT, ERR_VOLUME_NODE_CONFLICT, VolumeBinding } from './volume-binding';

const SELECTED = 'volume.kubernetes.io/selected-node';

function claim(
  name: string,
  className: string,
  options: { volumeName?: string; bound?: boolean; annotations?: Record<string, string>; owner?: string } = {},
): PersistentVolumeClaim {
  return {
    metadata: {
      name,
      namespace: 'default',
      uid: `uid-${name}`,
      resourceVersion: '1',
      annotations: { ...(options.bound ? { 'pv.kubernetes.io/bind-completed': 'yes' } : {}), ...options.annotations },
      ...(options.owner ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: options.owner, controller: true }] } : {}),
    },
    spec: { storageClassName: className, accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeName: options.volumeName },
    status: { phase: options.bound ? 'Bound' : 'Pending' },
  };
}

function localVolume(name: string, node: string, className: string, claimName?: string): PersistentVolume {
  return {
    metadata: { name, resourceVersion: '1' },
    spec: {
      capacity: { storage: '5Gi' },
      accessModes: ['ReadWriteOnce'],
      storageClassName: className,
      local: { path: `/data/${name}` },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }] } },
      ...(claimName ? { claimRef: { namespace: 'default', name: claimName, uid: `uid-${claimName}` } } : {}),
    },
    status: { phase: claimName ? 'Bound' : 'Available' },
  };
}

const classes: Record<string, StorageClass> = {
  wait: { metadata: { name: 'wait' }, provisioner: 'example.com/disk', volumeBindingMode: 'WaitForFirstConsumer' },
  local: { metadata: { name: 'local' }, provisioner: 'kubernetes.io/no-provisioner', volumeBindingMode: 'WaitForFirstConsumer' },
  now: { metadata: { name: 'now' }, provisioner: 'example.com/disk', volumeBindingMode: 'Immediate' },
};

function world(claims: PersistentVolumeClaim[], volumes: PersistentVolume[]) {
  const state = { claims: new Map(claims.map((c) => [c.metadata?.name ?? '', c])), volumes: new Map(volumes.map((v) => [v.metadata?.name ?? '', v])) };
  const cache = new VolumeAssumeCache({
    claim: (_ns, name) => state.claims.get(name),
    volume: (name) => state.volumes.get(name),
    volumes: () => [...state.volumes.values()],
    storageClass: (name) => classes[name],
  });
  const writes: Array<{ kind: string; object: PersistentVolume | PersistentVolumeClaim }> = [];
  // The API server's side: each write is taken with a new resourceVersion.
  const echo = (kind: string) => ({
    update: (object: PersistentVolume) => {
      writes.push({ kind, object });
      return Promise.resolve({ ...object, metadata: { ...object.metadata, resourceVersion: '2' } });
    },
  });
  const client = { persistentVolumes: echo('pv'), persistentVolumeClaims: echo('pvc') } as unknown as Client;
  return { state, cache, writes, plugin: new VolumeBinding(cache, client, 3_000) };
}

const podWith = (...claims: string[]) => testPod('p', { spec: { volumes: claims.map((c) => ({ name: c, persistentVolumeClaim: { claimName: c } })) } });
const cluster = clusterOf([testNode('n1'), testNode('n2')]);

describe('VolumeBinding', () => {
  it('skips pods without claims', () => {
    const { plugin } = world([], []);
    expect(filterNodes(plugin, cycleFor(cluster, testPod('p')))).toEqual({ n1: undefined, n2: undefined });
  });

  it('rejects a pod whose claim is missing, unbound of an Immediate class, or being deleted, on every node', () => {
    const { plugin, state } = world([claim('now', 'now')], []);
    expect(filterNodes(plugin, cycleFor(cluster, podWith('gone')))).toEqual({
      n1: 'persistentvolumeclaim "gone" not found',
      n2: 'persistentvolumeclaim "gone" not found',
    });
    expect(filterNodes(plugin, cycleFor(cluster, podWith('now'))).n1).toBe(ERR_UNBOUND_IMMEDIATE);
    state.claims.set('now', { ...claim('now', 'now'), metadata: { ...claim('now', 'now').metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } });
    expect(filterNodes(plugin, cycleFor(cluster, podWith('now'))).n1).toBe('persistentvolumeclaim "now" is being deleted');
    const ephemeral = testPod('p', { spec: { volumes: [{ name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } }] } });
    expect(filterNodes(plugin, cycleFor(cluster, ephemeral)).n2).toBe(
      'waiting for ephemeral volume controller to create the persistentvolumeclaim "p-scratch"',
    );
  });

  it('says the pre-filter reason once in the FitError message', () => {
    const { plugin } = world([claim('now', 'now')], []);
    const framework = new Framework([plugin], []);
    expect(() => framework.schedule(cycleFor(cluster, podWith('now')))).toThrow('0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims.');
  });

  it('keeps a pod on the node its bound local volume lives on', () => {
    const { plugin } = world([claim('data', 'local', { volumeName: 'pv1', bound: true })], [localVolume('pv1', 'n2', 'local', 'data')]);
    expect(filterNodes(plugin, cycleFor(cluster, podWith('data')))).toEqual({ n1: [ERR_VOLUME_NODE_CONFLICT], n2: undefined });
  });

  it('places an unbound WaitForFirstConsumer claim where an Available volume is, or where its class can provision', () => {
    const local = world([claim('data', 'local')], [localVolume('pv1', 'n1', 'local')]);
    expect(filterNodes(local.plugin, cycleFor(cluster, podWith('data')))).toEqual({ n1: undefined, n2: [ERR_VOLUME_BIND_CONFLICT] });
    const provisioned = world([claim('data', 'wait')], []);
    expect(filterNodes(provisioned.plugin, cycleFor(cluster, podWith('data')))).toEqual({ n1: undefined, n2: undefined });
    const chosen = world([claim('data', 'wait', { annotations: { [SELECTED]: 'n2' } })], []);
    expect(filterNodes(chosen.plugin, cycleFor(cluster, podWith('data')))).toEqual({ n1: [ERR_VOLUME_BIND_CONFLICT], n2: undefined });
  });

  it('reserves the choice for the next pods, writes it before binding, and waits until the claim is bound', async () => {
    const { plugin, state, writes, cache } = world([claim('data', 'wait')], []);
    const cycle = cycleFor(cluster, podWith('data'));
    filterNodes(plugin, cycle);
    plugin.reserve(cycle, 'n1');
    expect(cache.claim('default', 'data')?.metadata?.annotations?.[SELECTED]).toBe('n1');
    const binding = plugin.preBind(cycle, 'n1', new AbortController().signal);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(writes.map((w) => [w.kind, w.object.metadata?.annotations?.[SELECTED]])).toEqual([['pvc', 'n1']]);
    // The provisioner makes a volume on n1 and the controller binds the claim to it.
    state.volumes.set('pv-data', localVolume('pv-data', 'n1', 'wait', 'data'));
    const bound = claim('data', 'wait', { volumeName: 'pv-data', bound: true, annotations: { [SELECTED]: 'n1' } });
    state.claims.set('data', { ...bound, metadata: { ...bound.metadata, resourceVersion: '4' } });
    await expect(binding).resolves.toBeUndefined();
  });

  it('fails the binding when the selected node is taken off the claim, and undoes the reservation', async () => {
    const { plugin, state, cache } = world([claim('data', 'wait')], []);
    const cycle = cycleFor(cluster, podWith('data'));
    filterNodes(plugin, cycle);
    plugin.reserve(cycle, 'n2');
    const binding = plugin.preBind(cycle, 'n2', new AbortController().signal);
    await new Promise((resolve) => setTimeout(resolve, 50));
    state.claims.set('data', { ...claim('data', 'wait'), metadata: { ...claim('data', 'wait').metadata, resourceVersion: '3' } });
    await expect(binding).rejects.toThrow('binding volumes: selectedNode annotation reset for PVC "data"');
    plugin.unreserve(cycle);
    expect(cache.claim('default', 'data')?.metadata?.annotations?.[SELECTED]).toBeUndefined();
  });

  it('reserves an Available volume for the claim so the next pod does not take it', () => {
    const { plugin, cache, writes } = world([claim('data', 'local')], [localVolume('pv1', 'n1', 'local')]);
    const cycle = cycleFor(cluster, podWith('data'));
    filterNodes(plugin, cycle);
    plugin.reserve(cycle, 'n1');
    expect(cache.volume('pv1')?.spec?.claimRef?.name).toBe('data');
    expect(cache.volume('pv1')?.metadata?.annotations?.['pv.kubernetes.io/bound-by-controller']).toBe('yes');
    expect(writes).toEqual([]);
    plugin.unreserve(cycle);
    expect(cache.volume('pv1')?.spec?.claimRef).toBeUndefined();
  });
});
