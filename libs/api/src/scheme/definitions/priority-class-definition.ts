import {
  HIGHEST_USER_DEFINABLE_PRIORITY,
  PreemptionPolicies,
  PriorityClassSchema,
  SYSTEM_PRIORITY_CLASS_PREFIX,
  SYSTEM_PRIORITY_CLASSES,
  type PriorityClass,
} from '../../kinds/scheduling/priority-class';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject } from '../kind-definition';
import { ageColumn, column, nameColumn } from '../table';
import { as, defineKind } from './define-kind';

/** IsKnownSystemPriorityClass: why a `system-` class is not one of the system's, or undefined when it is. */
function systemClassError(pc: PriorityClass): string | undefined {
  const name = pc.metadata?.name ?? '';
  const known = SYSTEM_PRIORITY_CLASSES.find((c) => c.metadata?.name === name);
  if (known === undefined) return `${name} is not a known system priority class`;
  if (known.value !== pc.value) return `value of ${name} PriorityClass must be ${known.value}`;
  if ((known.globalDefault ?? false) !== (pc.globalDefault ?? false)) return `globalDefault of ${name} PriorityClass must be ${known.globalDefault ?? false}`;
  return undefined;
}

/** ValidatePriorityClass. */
function validatePriorityClass(obj: ApiObject): FieldError[] {
  const pc = as<PriorityClass>(obj);
  const errors: FieldError[] = [];
  if ((pc.metadata?.name ?? '').startsWith(SYSTEM_PRIORITY_CLASS_PREFIX)) {
    const error = systemClassError(pc);
    if (error !== undefined) {
      errors.push(
        fieldErrors.forbidden(
          'metadata.name',
          `priority class names with '${SYSTEM_PRIORITY_CLASS_PREFIX}' prefix are reserved for system use only. error: ${error}`,
        ),
      );
    }
  } else if (typeof pc.value === 'number' && pc.value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    errors.push(fieldErrors.forbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`));
  }
  const policy = pc.preemptionPolicy;
  if (policy === '') errors.push(fieldErrors.required('preemptionPolicy'));
  else if (policy !== undefined && !(PreemptionPolicies as readonly string[]).includes(policy)) {
    errors.push(fieldErrors.notSupported('preemptionPolicy', policy, PreemptionPolicies));
  }
  return errors;
}

/** ValidatePriorityClassUpdate: the value and the preemption policy pods were given stay theirs. */
function validatePriorityClassUpdate(obj: ApiObject, current: ApiObject): FieldError[] {
  const pc = as<PriorityClass>(obj);
  const old = as<PriorityClass>(current);
  const errors: FieldError[] = [];
  if (pc.value !== old.value) errors.push(fieldErrors.forbidden('value', 'may not be changed in an update.'));
  if (pc.preemptionPolicy !== old.preemptionPolicy) errors.push(fieldErrors.invalid('preemptionPolicy', pc.preemptionPolicy, 'field is immutable'));
  return errors;
}

/** Kubernetes' PriorityClass (scheduling.k8s.io/v1); the Priority admission plugin gives pods their class's value. */
export const priorityClassDefinition = defineKind({
  group: 'scheduling.svc.io',
  version: 'v1',
  kind: 'PriorityClass',
  resource: 'priorityclasses',
  namespaced: false,
  shortNames: ['pc'],
  schema: PriorityClassSchema,
  strategy: { validateUpdate: validatePriorityClassUpdate, bootstrapObjects: SYSTEM_PRIORITY_CLASSES },
  columns: [
    nameColumn(),
    column('Value', 'integer', (o) => as<PriorityClass>(o).value ?? 0, {
      description:
        'value represents the integer value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec.',
    }),
    column('Global-Default', 'boolean', (o) => as<PriorityClass>(o).globalDefault ?? false, {
      description:
        'globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. However, if more than one PriorityClasses exists with their `globalDefault` field set to true, the smallest value of such global default PriorityClasses will be used as the default priority.',
    }),
    ageColumn(),
    column('PreemptionPolicy', 'string', (o) => as<PriorityClass>(o).preemptionPolicy ?? '', {
      description:
        'preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.',
    }),
  ],
  validationRules: [validatePriorityClass],
});
