import { PodDisruptionBudgetSchema, type PodDisruptionBudget } from '../../kinds/policy/pod-disruption-budget';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject } from '../kind-definition';
import { ageColumn, column, nameColumn } from '../table';
import { as, defineKind } from './define-kind';
import { percentValue } from './workload-rules';

/** ValidatePodDisruptionBudgetSpec: one of the two bounds, and no percentage over 100%. */
function validateBudget(object: ApiObject): FieldError[] {
  const spec = as<PodDisruptionBudget>(object).spec ?? {};
  const errors: FieldError[] = [];
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined) {
    errors.push(fieldErrors.invalid('spec', spec, 'minAvailable and maxUnavailable cannot be both set'));
  }
  for (const field of ['minAvailable', 'maxUnavailable'] as const) {
    const p = percentValue(spec[field]);
    if (p !== undefined && p > 100) errors.push(fieldErrors.invalid(`spec.${field}`, spec[field], 'must not be greater than 100%'));
  }
  return errors;
}

const bound = (value: number | string | undefined): string => (value === undefined ? 'N/A' : String(value));

export const podDisruptionBudgetDefinition = defineKind({
  group: 'policy',
  version: 'v1',
  kind: 'PodDisruptionBudget',
  resource: 'poddisruptionbudgets',
  namespaced: true,
  shortNames: ['pdb'],
  subresources: { status: true },
  // podDisruptionBudgetStrategy.PrepareForCreate starts with an empty status: its counts have no omitempty.
  strategy: {
    prepareForCreate(budget) {
      budget.status = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
    },
  },
  schema: PodDisruptionBudgetSchema,
  columns: [
    nameColumn(),
    column('Min Available', 'string', (o) => bound(as<PodDisruptionBudget>(o).spec?.minAvailable), {
      description: 'The minimum number of pods that must be available.',
    }),
    column('Max Unavailable', 'string', (o) => bound(as<PodDisruptionBudget>(o).spec?.maxUnavailable), {
      description: 'The maximum number of pods that may be unavailable.',
    }),
    column('Allowed Disruptions', 'integer', (o) => as<PodDisruptionBudget>(o).status?.disruptionsAllowed ?? 0, {
      description: 'Calculated number of pods that may be disrupted at this time.',
    }),
    ageColumn(),
  ],
  validationRules: [validateBudget],
});
