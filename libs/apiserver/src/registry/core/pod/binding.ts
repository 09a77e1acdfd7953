import type { ApiObject, Binding, Pod, PodCondition } from '@svc/api';
import { newConflict, newNotFound, metaTime } from '@svc/machinery';
import { guaranteedUpdate } from '../../generic/guaranteed-update';
import { bumpGeneration } from '../../generic/object-meta-rules';
import { validateObject } from '../../generic/validation';
import type { SubresourceRest } from '../../rest';

const BINDING_RESOURCE = { group: '', resource: 'pods/binding' };

/**
 * Kubernetes' BindingREST: a Binding places a pod on a node, once, through the guaranteed update of
 * the pod (see bindPod), with the pod's own validation.
 */
export const podBindingRest: SubresourceRest = {
  create: ({ store, w, body, name }) =>
    guaranteedUpdate(store, w, async (current) => {
      if (current === null) throw newNotFound(store.groupResource, name);
      const next = bindPod(body as Binding, current as Pod, w.now);
      bumpGeneration(store.definition, next, current);
      validateObject(store, next, [], w);
      return { kind: 'update', object: next, current };
    }),
};

/**
 * The pod takes the target node as `spec.nodeName`, the Binding's annotations, and `PodScheduled=True`.
 * A pod being deleted, already bound, still gated, or not the one the Binding's uid and resourceVersion
 * name answers 409 Conflict.
 */
function bindPod(binding: Binding, pod: Pod, now: Date): ApiObject {
  checkBindable(binding, pod);
  const meta = pod.metadata ?? {};
  const annotations = { ...(meta.annotations ?? {}), ...(binding.metadata?.annotations ?? {}) };
  const conditions = pod.status?.conditions ?? [];
  const scheduled = conditions.find((c) => c.type === 'PodScheduled');
  const condition = scheduledCondition(scheduled, now);
  return {
    ...pod,
    metadata: { ...meta, ...(Object.keys(annotations).length > 0 ? { annotations } : {}) },
    spec: { ...pod.spec, nodeName: binding.target.name },
    status: { ...pod.status, conditions: scheduled ? conditions.map((c) => (c === scheduled ? condition : c)) : [...conditions, condition] },
  };
}

function checkBindable(binding: Binding, pod: Pod): void {
  const meta = pod.metadata ?? {};
  const name = meta.name ?? '';
  const refuse = (reason: string) => newConflict(BINDING_RESOURCE, name, reason);
  if (meta.deletionTimestamp) throw refuse(`pod ${name} is being deleted, cannot be assigned to a host`);
  const wantedUid = binding.metadata?.uid;
  if (wantedUid && wantedUid !== meta.uid) {
    throw refuse(`Precondition failed: UID in precondition: ${wantedUid}, UID in object meta: ${meta.uid ?? ''}`);
  }
  const wantedVersion = binding.metadata?.resourceVersion;
  if (wantedVersion && wantedVersion !== meta.resourceVersion) {
    throw refuse(`Precondition failed: ResourceVersion in precondition: ${wantedVersion}, ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`);
  }
  const nodeName = pod.spec?.nodeName;
  if (typeof nodeName === 'string' && nodeName !== '') throw refuse(`pod ${name} is already assigned to node ${JSON.stringify(nodeName)}`);
  const gates = pod.spec?.schedulingGates;
  if (Array.isArray(gates) && gates.length > 0) throw refuse(`pod ${name} has non-empty .spec.schedulingGates`);
}

/** `PodScheduled=True`: its transition time kept when it was True already; a failed-to-schedule reason and message dropped. */
function scheduledCondition(scheduled: PodCondition | undefined, now: Date): PodCondition {
  if (scheduled?.status === 'True') return { ...scheduled, type: 'PodScheduled', status: 'True', lastTransitionTime: scheduled.lastTransitionTime };
  return { type: 'PodScheduled', status: 'True', lastTransitionTime: metaTime(now) };
}
