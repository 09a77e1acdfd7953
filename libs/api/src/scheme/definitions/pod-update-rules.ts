import { jsonClone, jsonEqual } from '@svc/machinery';
import type { Pod } from '../../kinds/core/pod';
import type { Toleration } from '../../kinds/core/pod-spec';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject } from '../kind-definition';
import { as } from './define-kind';

/** Kubernetes' own words for a pod update that changes more than a running pod may. */
const IMMUTABLE_SPEC =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,' +
  '`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

type Spec = NonNullable<Pod['spec']>;

const sameToleration = (a: Toleration, b: Toleration): boolean =>
  (a.key ?? '') === (b.key ?? '') &&
  (a.operator ?? 'Equal') === (b.operator ?? 'Equal') &&
  (a.value ?? '') === (b.value ?? '') &&
  (a.effect ?? '') === (b.effect ?? '');

/**
 * Kubernetes' ValidatePodUpdate for the main resource: a pod's spec is fixed once created but for its
 * containers' images, a shorter activeDeadlineSeconds, more tolerations (an existing one may change only
 * its tolerationSeconds), fewer scheduling gates, and a negative terminationGracePeriodSeconds set to 1.
 * Its node comes from `binding`, its ephemeral containers from `ephemeralcontainers`, resources from
 * neither here.
 */
export function validatePodUpdate(object: ApiObject, current: ApiObject): FieldError[] {
  const next: Spec = as<Pod>(object).spec ?? {};
  const old: Spec = as<Pod>(current).spec ?? {};
  const errors: FieldError[] = [];

  if (old.activeDeadlineSeconds !== undefined) {
    if (next.activeDeadlineSeconds === undefined) {
      errors.push(fieldErrors.invalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'));
    } else if (next.activeDeadlineSeconds > old.activeDeadlineSeconds) {
      errors.push(fieldErrors.invalid('spec.activeDeadlineSeconds', next.activeDeadlineSeconds, 'must be less than or equal to previous value'));
    }
  }
  const kept = next.tolerations ?? [];
  // Kubernetes names the list once, for the first existing toleration that is gone.
  if ((old.tolerations ?? []).some((toleration) => !kept.some((t) => sameToleration(t, toleration)))) {
    errors.push(fieldErrors.forbidden('spec.tolerations', 'existing toleration can not be modified except its tolerationSeconds'));
  }
  const gates = new Set((old.schedulingGates ?? []).map((g) => g.name));
  (next.schedulingGates ?? []).forEach((gate, i) => {
    if (!gates.has(gate.name))
      errors.push(fieldErrors.forbidden(`spec.schedulingGates[${i}]`, `only deletion is allowed, but found new scheduling gate '${gate.name}'`));
  });

  // What is left once the changes a pod may take are taken from the new spec must be the old spec.
  const allowed = jsonClone<Spec>(old);
  const images = (from: Spec['containers'] | undefined, into: Spec['containers'] | undefined): void => {
    if (!from || !into || from.length !== into.length) return;
    into.forEach((c, i) => (c.image = from[i].image));
  };
  images(next.containers, allowed.containers);
  images(next.initContainers, allowed.initContainers);
  for (const field of ['activeDeadlineSeconds', 'tolerations', 'schedulingGates'] as const) {
    if (next[field] === undefined) delete allowed[field];
    else (allowed as Record<string, unknown>)[field] = next[field];
  }
  if ((old.terminationGracePeriodSeconds ?? 0) < 0 && next.terminationGracePeriodSeconds === 1) allowed.terminationGracePeriodSeconds = 1;
  if (!jsonEqual(allowed, next)) errors.push(fieldErrors.forbidden('spec', IMMUTABLE_SPEC));
  return errors;
}
