import { DEFAULT_STATUS_RESET_FIELDS, type ApiObject, type ResetField, type KindDefinition } from '@svc/api';
import { newNotFound, type FieldError } from '@svc/machinery';
import { bumpGeneration, hasStatusSubresource, prepareForUpdate, statusUpdateOf, validateUpdate } from './object-meta-rules';
import type { WriteTarget } from './write-state';

/** What an update of one target makes of the request's object, and the errors found on the way. */
export interface PreparedUpdate {
  next: ApiObject;
  errors: FieldError[];
}

/**
 * Kubernetes' PrepareForUpdate of the strategy that serves the target: the main resource carries over
 * what it may not change (status included, where a status subresource serves it); `status` takes the
 * request's status and what the kind's status strategy does not reset; `scale` has already written
 * the replica count; a subresource of the kind's own (a namespace's finalize) says what it changes.
 * Every path but the main resource's bumps the generation here: the main resource does once more
 * after mutating admission (see the update steps).
 */
export function prepareUpdateOf(def: KindDefinition, target: WriteTarget, incoming: ApiObject, current: ApiObject, name: string): PreparedUpdate {
  switch (target) {
    case '': {
      const errors = validateUpdate(incoming, current);
      prepareForUpdate(def, incoming, current);
      return { next: incoming, errors };
    }
    case 'status': {
      const next = statusUpdateOf(def, incoming, current);
      def.strategy.status?.prepareForUpdate?.(next, current);
      bumpGeneration(def, next, current);
      return { next, errors: def.strategy.status?.validateUpdate?.(next, current) ?? [] };
    }
    case 'scale':
      bumpGeneration(def, incoming, current);
      return { next: incoming, errors: [] };
    default: {
      const extra = def.strategy.subresources?.[target];
      if (extra?.updateOf === undefined) throw newNotFound({ group: def.group, resource: def.resource }, name);
      return { next: extra.updateOf(incoming, current), errors: [] };
    }
  }
}

/**
 * The fields a write through `target` cannot change, as Kubernetes' per-kind reset fields: a server-side
 * apply gets them back from the stored object and managedFields never record them. The main resource
 * resets its status where a status subresource serves it; `status` resets what the kind's status
 * strategy says (its spec by default; a Deployment's labels too); a subresource of the kind's own says
 * what it resets.
 */
export function resetFieldsOf(def: KindDefinition, target: WriteTarget): readonly ResetField[] | undefined {
  switch (target) {
    case '':
      return hasStatusSubresource(def) ? MAIN_RESET_FIELDS : undefined;
    case 'status':
      return def.strategy.status?.resetFields ?? DEFAULT_STATUS_RESET_FIELDS;
    case 'scale':
      return undefined;
    default:
      return def.strategy.subresources?.[target]?.resetFields;
  }
}

const MAIN_RESET_FIELDS: readonly ResetField[] = [['status']];
