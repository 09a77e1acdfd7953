import type { Pod } from '@svc/api';
import { getControllerOf, type Predicate } from '@svc/runtime';
import { isPodReady } from '../common/pod-status';

function sameRecord(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean {
  const ak = Object.keys(a ?? {});
  return ak.length === Object.keys(b ?? {}).length && ak.every((k) => a?.[k] === b?.[k]);
}

function controllerUid(pod: Pod): string | undefined {
  return getControllerOf(pod)?.uid;
}

/**
 * Whether a pod update can change a budget's status: its labels (which budgets select it), its
 * deletion, its readiness, its controller (the scale counted). The node agent's other status
 * writes (container states, other conditions) wake no budget.
 */
export function podDisruptionChanged(oldPod: Pod, newPod: Pod): boolean {
  if (oldPod.metadata?.resourceVersion !== undefined && oldPod.metadata.resourceVersion === newPod.metadata?.resourceVersion) return false;
  return (
    !sameRecord(oldPod.metadata?.labels, newPod.metadata?.labels) ||
    oldPod.metadata?.deletionTimestamp !== newPod.metadata?.deletionTimestamp ||
    isPodReady(oldPod) !== isPodReady(newPod) ||
    controllerUid(oldPod) !== controllerUid(newPod)
  );
}

/** Pod events a budget may depend on: every create and delete, updates that {@link podDisruptionChanged}. */
export const PodDisruptionChanged: Predicate<Pod> = (event) => event.type !== 'update' || podDisruptionChanged(event.oldObject, event.object);
