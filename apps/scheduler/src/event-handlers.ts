import type { Node, Pod } from '@svc/api';
import type { ResourceEventHandler } from '@svc/informers';
import { jsonEqual } from '@svc/machinery';
import type { SchedulerCache } from './cache/scheduler-cache';
import type { NodeChange } from './queue/cluster-event';
import type { SchedulingQueue } from './queue/scheduling-queue';

function assigned(pod: Pod): boolean {
  return !!pod.spec.nodeName;
}

function terminating(pod: Pod): boolean {
  return !!pod.metadata?.deletionTimestamp;
}

function sameLabels(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean {
  return jsonEqual(a ?? {}, b ?? {});
}

/** What changed between two states of a node that scheduling reads (Kubernetes' nodeSchedulingPropertiesChange); heartbeats are not among it. */
export function nodeChanges(oldNode: Node, newNode: Node): Set<NodeChange> {
  const changes = new Set<NodeChange>();
  if (!sameLabels(oldNode.metadata?.labels, newNode.metadata?.labels)) changes.add('label');
  if (!jsonEqual(oldNode.spec?.taints ?? [], newNode.spec?.taints ?? [])) changes.add('taint');
  if (!jsonEqual(oldNode.status?.allocatable ?? {}, newNode.status?.allocatable ?? {})) changes.add('allocatable');
  if (!!oldNode.spec?.unschedulable !== !!newNode.spec?.unschedulable) changes.add('unschedulable');
  const statuses = (n: Node) => (n.status?.conditions ?? []).map((c) => `${c.type}=${c.status}`).join(',');
  if (statuses(oldNode) !== statuses(newNode)) changes.add('condition');
  return changes;
}

/**
 * Informer events into the cache and the queue (Kubernetes' scheduler event handlers): pods on a
 * node into the cache, pending pods of this scheduler into the queue, and the cluster changes that
 * may let waiting pods fit moving them back to be tried.
 */
export function podEventHandler(cache: SchedulerCache, queue: SchedulingQueue, schedulerName: string): ResourceEventHandler<Pod> {
  const ours = (pod: Pod) => (pod.spec.schedulerName || 'default-scheduler') === schedulerName;
  return {
    onAdd(pod) {
      if (assigned(pod)) {
        cache.addPod(pod);
        queue.moveOnEvent({ resource: 'AssignedPod', action: 'Add' });
      } else if (ours(pod) && !terminating(pod)) {
        queue.add(pod);
      }
    },
    onUpdate(oldPod, newPod) {
      if (assigned(newPod)) {
        if (!assigned(oldPod)) queue.delete(newPod);
        cache.updatePod(newPod);
        if (!assigned(oldPod)) queue.moveOnEvent({ resource: 'AssignedPod', action: 'Add' });
        else if (!sameLabels(oldPod.metadata?.labels, newPod.metadata?.labels))
          queue.moveOnEvent({ resource: 'AssignedPod', action: 'Update', changes: new Set(['label']) });
        return;
      }
      if (!ours(newPod)) return;
      if (terminating(newPod)) queue.delete(newPod);
      else queue.update(oldPod, newPod);
    },
    onDelete(pod) {
      if (assigned(pod)) {
        cache.removePod(pod);
        queue.moveOnEvent({ resource: 'AssignedPod', action: 'Delete' });
      } else {
        queue.delete(pod);
        // An assumed pod deleted before the informer showed it bound.
        cache.removePod(pod);
      }
    },
  };
}

export function nodeEventHandler(cache: SchedulerCache, queue: SchedulingQueue): ResourceEventHandler<Node> {
  return {
    onAdd(node) {
      cache.addNode(node);
      queue.moveOnEvent({ resource: 'Node', action: 'Add' });
    },
    onUpdate(oldNode, newNode) {
      cache.updateNode(newNode);
      const changes = nodeChanges(oldNode, newNode);
      if (changes.size > 0) queue.moveOnEvent({ resource: 'Node', action: 'Update', changes });
    },
    onDelete(node) {
      cache.removeNode(node.metadata?.name ?? '');
    },
  };
}
