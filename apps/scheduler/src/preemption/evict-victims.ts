import type { Pod, PodCondition } from '@svc/api';
import type { Client } from '@svc/client';
import { isConflict, isNotFound, metaTime } from '@svc/machinery';
import type { ControllerLogger } from '@svc/runtime';
import type { EventSink } from '../event-sink';
import { InFlightLimit } from '../in-flight-limit';
import type { Candidate } from './candidates';

/** Victims evicted at once (Kubernetes' parallelizer default). */
const EVICTION_PARALLELISM = 16;

/**
 * Evicts one victim as Kubernetes' preemption does: the DisruptionTarget condition with reason
 * PreemptionByScheduler first (so the pod's owner and its containers know why it goes), then a
 * graceful delete, then a Preempted event on the victim. A victim already going is left alone; one
 * already gone is done with.
 */
async function evict(client: Client, events: EventSink, preemptor: Pod, victim: Pod, nodeName: string): Promise<void> {
  const meta = victim.metadata ?? {};
  if (meta.deletionTimestamp) return;
  const message = `${preemptor.spec.schedulerName || 'default-scheduler'}: preempting to accommodate a higher priority pod`;
  const existing = victim.status?.conditions?.find((c) => c.type === 'DisruptionTarget');
  if (existing?.status !== 'True' || existing.reason !== 'PreemptionByScheduler' || existing.message !== message) {
    const condition: PodCondition = {
      type: 'DisruptionTarget',
      status: 'True',
      reason: 'PreemptionByScheduler',
      message,
      lastTransitionTime: existing?.status === 'True' ? existing.lastTransitionTime : metaTime(),
    };
    try {
      await client.pods.patchStatus(meta.name ?? '', { status: { conditions: [condition] } }, 'strategic', { namespace: meta.namespace });
    } catch (error) {
      if (isNotFound(error)) return;
      throw error;
    }
  }
  try {
    await client.pods.delete(meta.name ?? '', { namespace: meta.namespace, preconditions: { uid: meta.uid } });
  } catch (error) {
    // Gone, or replaced by a pod of the same name that was never chosen.
    if (isNotFound(error) || isConflict(error)) return;
    throw error;
  }
  events.record(victim, 'Normal', 'Preempted', `Preempted by pod ${preemptor.metadata?.uid ?? ''} on node ${nodeName}`);
}

/**
 * Makes a chosen preemption happen (Kubernetes' prepareCandidate): every victim evicted, then the
 * pods of lower priority nominated to the same node lose that nomination, since the preemptor now
 * takes the room they counted on (a failure there is only logged). Rejects with the first eviction
 * that failed.
 */
export async function evictVictims(
  client: Client,
  events: EventSink,
  logger: ControllerLogger,
  preemptor: Pod,
  candidate: Candidate,
  lowerNominated: readonly Pod[],
): Promise<void> {
  const slots = new InFlightLimit(EVICTION_PARALLELISM);
  await Promise.all(candidate.victims.pods.map(({ pod }) => slots.run(() => evict(client, events, preemptor, pod, candidate.nodeName))));
  await Promise.all(
    lowerNominated.map((pod) =>
      client.pods
        .patchStatus(pod.metadata?.name ?? '', { status: { nominatedNodeName: null } }, 'merge', { namespace: pod.metadata?.namespace })
        .catch((error: unknown) => {
          if (!isNotFound(error)) logger.error(`clearing the nominated node of ${pod.metadata?.namespace}/${pod.metadata?.name} failed`, error);
        }),
    ),
  );
}
