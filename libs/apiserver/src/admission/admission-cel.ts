import { compileCel, PER_CALL_COST_LIMIT, RUNTIME_COST_BUDGET, RUNTIME_MATCH_CONDITIONS_BUDGET, type CelProgram } from '@svc/api';
import { requestUser } from './request-user';
import type { AdmissionAttributes } from './admission';
import type { NamespaceLookup } from './namespace-lifecycle';

/** The variables admission expressions may read (Kubernetes' `authorizer` is not offered). */
export const ADMISSION_CEL_VARIABLES = ['object', 'oldObject', 'request', 'params', 'namespaceObject', 'variables'];

const PROGRAM_CACHE_SIZE = 512;
const programs = new Map<string, CelProgram | Error>();

/** One compiled program per expression source, kept in a bounded cache (configurations are read often). */
export function admissionProgram(expression: string): CelProgram {
  let found = programs.get(expression);
  if (found === undefined) {
    try {
      found = compileCel(expression, ADMISSION_CEL_VARIABLES);
    } catch (error) {
      found = error as Error;
    }
    if (programs.size >= PROGRAM_CACHE_SIZE) programs.delete(programs.keys().next().value as string);
    programs.set(expression, found);
  }
  if (found instanceof Error) throw found;
  return found;
}

/** JSON as CEL reads it: whole numbers as ints. */
function toCel(value: unknown, depth = 0): unknown {
  if (depth > 1100) return value;
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map((v) => toCel(v, depth + 1));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = toCel(v, depth + 1);
    return out;
  }
  return value;
}

/** The `request` variable: Kubernetes' AdmissionRequest fields that expressions read. */
export function admissionRequest(attributes: AdmissionAttributes): Record<string, unknown> {
  const { definition } = attributes;
  return {
    kind: { group: definition.group, version: definition.version, kind: definition.kind },
    resource: { group: definition.group, version: definition.version, resource: definition.resource },
    subResource: attributes.subresource,
    requestKind: { group: definition.group, version: definition.version, kind: definition.kind },
    requestResource: { group: definition.group, version: definition.version, resource: definition.resource },
    name: attributes.name,
    namespace: attributes.namespace,
    operation: attributes.operation,
    dryRun: attributes.dryRun,
    userInfo: requestUser(attributes),
  };
}

/** What is left of a cost budget; shared by the evaluations it bounds. */
interface CostBudget {
  remaining: number;
}

/**
 * The values expressions of one request see, made once per request, and the cost budget they draw
 * on: as in Kubernetes, each evaluation is stopped past the per-call limit (1,000,000) and its actual
 * cost (only what ran: `&&`, `||` and `?:` short-circuit) is charged to the budget of its binding
 * (10,000,000), or of the match conditions (2,500,000).
 */
export class AdmissionCelContext {
  private constructor(
    readonly bindings: Record<string, unknown>,
    private readonly budget: CostBudget,
  ) {}

  static async of(attributes: AdmissionAttributes, namespaces: NamespaceLookup): Promise<AdmissionCelContext> {
    const namespaceObject = attributes.namespace ? ((await namespaces(attributes.namespace)) ?? null) : null;
    const object = attributes.operation === 'DELETE' ? null : (attributes.object ?? null);
    const oldObject = attributes.oldObject ?? null;
    const request = admissionRequest(attributes);
    return new AdmissionCelContext(
      { object: toCel(object), oldObject: toCel(oldObject), request: toCel(request), params: null, namespaceObject: toCel(namespaceObject), variables: {} },
      { remaining: RUNTIME_COST_BUDGET },
    );
  }

  /** The same values with a budget of their own: a binding's validations (10,000,000). */
  forBinding(): AdmissionCelContext {
    return new AdmissionCelContext(this.bindings, { remaining: RUNTIME_COST_BUDGET });
  }

  /** The same values with the budget of match conditions (2,500,000). */
  forMatchConditions(): AdmissionCelContext {
    return new AdmissionCelContext(this.bindings, { remaining: RUNTIME_MATCH_CONDITIONS_BUDGET });
  }

  /** With `params` set to this object (a binding's param), `variables` emptied. */
  withParams(params: unknown): AdmissionCelContext {
    return new AdmissionCelContext({ ...this.bindings, params: toCel(params ?? null), variables: {} }, this.budget);
  }

  /** With `variables` set to these values (a policy's own). */
  withVariables(variables: Record<string, unknown>): AdmissionCelContext {
    return new AdmissionCelContext({ ...this.bindings, variables }, this.budget);
  }

  /** The value of `expression`, or why there is none. */
  evaluate(expression: string): { ok: true; value: unknown } | { ok: false; error: string } {
    let program: CelProgram;
    try {
      program = admissionProgram(expression);
    } catch (error) {
      return { ok: false, error: `compilation failed: ${(error as Error).message}` };
    }
    const outcome = program.evaluateWithCost(this.bindings, PER_CALL_COST_LIMIT);
    if (outcome.cost > this.budget.remaining) {
      this.budget.remaining = -1;
      return { ok: false, error: 'validation failed due to running out of cost budget, no further validation rules will be run' };
    }
    this.budget.remaining -= outcome.cost;
    return outcome.ok ? { ok: true, value: outcome.value } : { ok: false, error: outcome.error };
  }
}

/** Whether every match condition holds; an error is returned for the failure policy to judge. */
export function matchConditionsHold(context: AdmissionCelContext, conditions: readonly { name: string; expression: string }[] | undefined): boolean | string {
  const bounded = context.forMatchConditions();
  for (const condition of conditions ?? []) {
    const out = bounded.evaluate(condition.expression);
    if (!out.ok) return `matchCondition '${condition.name}' resulted in error: ${out.error}`;
    if (out.value !== true) return false;
  }
  return true;
}
