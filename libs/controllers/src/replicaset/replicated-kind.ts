import type { ReplicaSet, ReplicationController } from '@svc/api';
import { BUILTIN_RESOURCES, type Client } from '@svc/client';
import type { Lister } from '@svc/informers';
import type { CacheReader } from '@svc/runtime';
import type { ReplicaSetStatus } from './replicaset-status';

/** The reads of cached controllers the reconciler makes, as ReplicaSets. */
export interface ReplicaSetViews {
  namespace(namespace: string): { get(name: string): ReplicaSet | undefined; list(): ReplicaSet[] };
}

/**
 * A kind whose objects keep a number of pods from a template: ReplicaSet itself, or core/v1
 * ReplicationController, which Kubernetes' replication manager drives with the ReplicaSet
 * controller's code through a conversion. The reconciler sees every controller as a ReplicaSet
 * view; reads and status writes go through this adapter to the real kind.
 */
export interface ReplicatedKind {
  /** `apiVersion` and `kind` of the controller references its pods carry. */
  readonly apiVersion: string;
  readonly kind: string;
  /** The component its events are reported by. */
  readonly component: string;
  /** Whether its status has `terminatingReplicas` (ReplicationController's has not). */
  readonly countsTerminating: boolean;
  /** The cached objects of the kind, as ReplicaSets. */
  views(cache: CacheReader): ReplicaSetViews;
  /** An uncached read, as a view; rejects as the client does (404 included). */
  get(client: Client, namespace: string, name: string): Promise<ReplicaSet>;
  /** Writes the status of the object behind `view`. */
  updateStatus(client: Client, view: ReplicaSet, status: ReplicaSetStatus): Promise<void>;
}

export const REPLICA_SETS: ReplicatedKind = {
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  component: 'replicaset-controller',
  countsTerminating: true,
  views: (cache) => cache.lister(BUILTIN_RESOURCES.replicaSets),
  get: (client, namespace, name) => client.replicaSets.get(name, { namespace }),
  updateStatus: async (client, view, status) => {
    await client.replicaSets.updateStatus({ ...view, status }, { namespace: view.metadata?.namespace });
  },
};

// A cached object is frozen and replaced on each change: it keys its view, and the view its object.
const rcViews = new WeakMap<ReplicationController, ReplicaSet>();
const rcOfView = new WeakMap<ReplicaSet, ReplicationController>();

/** Kubernetes' conversion of a ReplicationController to a ReplicaSet: the label map becomes matchLabels. */
export function replicaSetViewOf(rc: ReplicationController): ReplicaSet {
  let view = rcViews.get(rc);
  if (view === undefined) {
    const spec = rc.spec ?? {};
    view = {
      apiVersion: 'v1',
      kind: 'ReplicationController',
      metadata: rc.metadata,
      spec: {
        replicas: spec.replicas,
        minReadySeconds: spec.minReadySeconds,
        selector: { matchLabels: { ...(spec.selector ?? {}) } },
        template: spec.template ?? {},
      },
      ...(rc.status ? { status: rc.status } : {}),
    } as ReplicaSet;
    rcViews.set(rc, view);
    rcOfView.set(view, rc);
  }
  return view;
}

function rcLister(lister: Lister<ReplicationController>): ReplicaSetViews {
  return {
    namespace: (namespace) => {
      const scoped = lister.namespace(namespace);
      return {
        get: (name) => {
          const rc = scoped.get(name);
          return rc === undefined ? undefined : replicaSetViewOf(rc);
        },
        list: () => scoped.list().map(replicaSetViewOf),
      };
    },
  };
}

export const REPLICATION_CONTROLLERS: ReplicatedKind = {
  apiVersion: 'v1',
  kind: 'ReplicationController',
  component: 'replication-controller',
  countsTerminating: false,
  views: (cache) => rcLister(cache.lister(BUILTIN_RESOURCES.replicationControllers)),
  get: async (client, namespace, name) => replicaSetViewOf(await client.replicationControllers.get(name, { namespace })),
  updateStatus: async (client, view, status) => {
    const rc = rcOfView.get(view);
    if (rc === undefined) throw new Error(`no ReplicationController behind the view of ${view.metadata?.namespace}/${view.metadata?.name}`);
    const { terminatingReplicas: _ignored, ...own } = status;
    await client.replicationControllers.updateStatus({ ...rc, status: own }, { namespace: rc.metadata?.namespace });
  },
};
