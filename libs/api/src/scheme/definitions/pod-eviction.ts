import { isRecord } from '@svc/machinery';
import { EvictionSchema, type Eviction } from '../../kinds/policy/pod-disruption-budget';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject } from '../kind-definition';
import type { SubresourceCreate } from '../kind-strategy';
import { as } from './define-kind';

export const EVICTION_GVK = { group: 'policy', version: 'v1', kind: 'Eviction' } as const;

/** The Eviction's DeleteOptions, typed as the pod's delete takes them. */
function validateEviction(body: ApiObject): FieldError[] {
  const options = as<Eviction>(body).deleteOptions;
  if (options === undefined || options === null) return [];
  if (!isRecord(options)) return [fieldErrors.typeInvalid('deleteOptions', options, 'must be an object')];
  const errors: FieldError[] = [];
  const grace = options.gracePeriodSeconds;
  if (grace !== undefined && (typeof grace !== 'number' || !Number.isInteger(grace) || grace < 0)) {
    errors.push(fieldErrors.invalid('deleteOptions.gracePeriodSeconds', grace, 'must be greater than or equal to 0'));
  }
  const policy = options.propagationPolicy;
  if (policy !== undefined && !['Orphan', 'Background', 'Foreground'].includes(policy)) {
    errors.push(fieldErrors.notSupported('deleteOptions.propagationPolicy', policy, ['Foreground', 'Background', 'Orphan']));
  }
  const dryRun = options.dryRun as unknown;
  if (dryRun !== undefined && (!Array.isArray(dryRun) || dryRun.some((v) => v !== 'All'))) {
    errors.push(fieldErrors.notSupported('deleteOptions.dryRun', dryRun, ['All']));
  }
  const preconditions = options.preconditions as unknown;
  if (preconditions !== undefined && preconditions !== null) {
    if (!isRecord(preconditions) || Object.values(preconditions).some((v) => v !== undefined && v !== null && typeof v !== 'string')) {
      errors.push(fieldErrors.typeInvalid('deleteOptions.preconditions', preconditions, 'must hold a uid and a resourceVersion as strings'));
    }
  }
  return errors;
}

/** The pod's `eviction` subresource: an Eviction, whose delete options the pod's delete takes. */
export const podEviction: SubresourceCreate = {
  kind: EVICTION_GVK,
  schema: EvictionSchema,
  validate: validateEviction,
};
