import {
  authorizationCheckKey,
  authorizerBindings,
  compileAdmissionExpression,
  PendingAuthorization,
  PER_CALL_COST_LIMIT,
  RUNTIME_COST_BUDGET,
  RUNTIME_MATCH_CONDITIONS_BUDGET,
  type AdmissionEnvironment,
  type AdmissionExpressionKind,
  type AuthorizationAnswer,
  type AuthorizationCheck,
  type CelProgram,
} from '@svc/api';
import type { Authorizer } from '../auth/authorizer';
import { requestUser } from './request-user';
import type { AdmissionAttributes } from './admission';
import type { NamespaceLookup } from './namespace-lifecycle';

/** The server's authorizer, once built (it is built after admission); undefined where nothing authorizes. */
export type AdmissionAuthorizer = () => Authorizer | undefined;

const PROGRAM_CACHE_SIZE = 512;
const programs = new Map<string, CelProgram | Error>();

/**
 * One compiled program per expression, kind and environment, kept in a bounded cache (configurations
 * are read often). Stored expressions are compiled against the declarations they were written for,
 * so the checked program is the one the write accepted.
 */
export function admissionProgram(expression: string, kind: AdmissionExpressionKind, env: AdmissionEnvironment): CelProgram {
  const key = `${env.signature}\u0000${kind}\u0000${expression}`;
  let found = programs.get(key);
  if (found === undefined) {
    try {
      found = compileAdmissionExpression(expression, kind, env);
    } catch (error) {
      found = error as Error;
    }
    if (programs.size >= PROGRAM_CACHE_SIZE) programs.delete(programs.keys().next().value as string);
    programs.set(key, found);
  }
  if (found instanceof Error) throw found;
  return found;
}

/** Evaluations of one expression stopped for an unanswered check, at most (each check costs 350,000 of 1,000,000). */
const MAX_AUTHORIZATION_ROUNDS = 8;

/**
 * The authorizer's answers for one request: the CEL authorizer library reads them synchronously, and
 * a check not answered yet is asked here, between two runs of the expression.
 */
class AuthorizationAnswers {
  private readonly known = new Map<string, AuthorizationAnswer>();

  constructor(private readonly authorizer: AdmissionAuthorizer | undefined) {}

  readonly lookup = (check: AuthorizationCheck): AuthorizationAnswer | undefined => this.known.get(authorizationCheckKey(check));

  async answer(check: AuthorizationCheck): Promise<void> {
    const authorizer = this.authorizer?.();
    let answer: AuthorizationAnswer;
    if (authorizer === undefined) answer = { decision: 'allow', reason: '' };
    else {
      try {
        const result = await authorizer.authorize({
          user: {
            name: check.user.username,
            uid: check.user.uid,
            groups: [...check.user.groups],
            extra: check.user.extra,
          },
          verb: check.verb,
          isResourceRequest: check.resourceRequest,
          namespace: check.namespace,
          apiGroup: check.apiGroup,
          apiVersion: check.apiVersion,
          resource: check.resource,
          subresource: check.subresource,
          name: check.name,
          path: check.path,
        });
        answer =
          result.error === undefined
            ? { decision: result.decision, reason: result.reason }
            : { decision: result.decision, reason: result.reason, error: result.error };
      } catch (error) {
        answer = { decision: 'noOpinion', reason: '', error: (error as Error).message };
      }
    }
    this.known.set(authorizationCheckKey(check), answer);
  }
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

export type AdmissionOutcome = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * The values expressions of one request see, made once per request, and the cost budget they draw
 * on: as in Kubernetes, each evaluation is stopped past the per-call limit (1,000,000) and its actual
 * cost (only what ran: `&&`, `||` and `?:` short-circuit) is charged to the budget of its binding
 * (10,000,000), or of the match conditions (2,500,000). `authorizer` answers for the request's user.
 */
export class AdmissionCelContext {
  private constructor(
    readonly bindings: Record<string, unknown>,
    private readonly budget: CostBudget,
    private readonly answers: AuthorizationAnswers,
  ) {}

  static async of(attributes: AdmissionAttributes, namespaces: NamespaceLookup, authorizer?: AdmissionAuthorizer): Promise<AdmissionCelContext> {
    const namespaceObject = attributes.namespace ? ((await namespaces(attributes.namespace)) ?? null) : null;
    const object = attributes.operation === 'DELETE' ? null : (attributes.object ?? null);
    const oldObject = attributes.oldObject ?? null;
    const request = admissionRequest(attributes);
    const answers = new AuthorizationAnswers(authorizer);
    const { definition } = attributes;
    const authz = authorizerBindings(requestUser(attributes), answers.lookup, {
      group: definition.group,
      resource: definition.resource,
      subresource: attributes.subresource,
      namespace: attributes.namespace,
      name: attributes.name,
    });
    return new AdmissionCelContext(
      {
        object: toCel(object),
        oldObject: toCel(oldObject),
        request: toCel(request),
        params: null,
        namespaceObject: toCel(namespaceObject),
        variables: {},
        ...authz,
      },
      { remaining: RUNTIME_COST_BUDGET },
      answers,
    );
  }

  /** The same values with a budget of their own: a binding's validations (10,000,000). */
  forBinding(): AdmissionCelContext {
    return new AdmissionCelContext(this.bindings, { remaining: RUNTIME_COST_BUDGET }, this.answers);
  }

  /** The same values with the budget of match conditions (2,500,000). */
  forMatchConditions(): AdmissionCelContext {
    return new AdmissionCelContext(this.bindings, { remaining: RUNTIME_MATCH_CONDITIONS_BUDGET }, this.answers);
  }

  /** With `params` set to this object (a binding's param), `variables` emptied. */
  withParams(params: unknown): AdmissionCelContext {
    return new AdmissionCelContext({ ...this.bindings, params: toCel(params ?? null), variables: {} }, this.budget, this.answers);
  }

  /** With `variables` set to these values (a policy's own). */
  withVariables(variables: Record<string, unknown>): AdmissionCelContext {
    return new AdmissionCelContext({ ...this.bindings, variables }, this.budget, this.answers);
  }

  /**
   * The value of `expression`, or why there is none. Authorizer checks are answered between runs: a
   * run that reaches an unanswered check stops, the check is asked, and the expression runs again
   * with the answer; only the final run's cost is charged.
   */
  async evaluate(expression: string, kind: AdmissionExpressionKind, env: AdmissionEnvironment): Promise<AdmissionOutcome> {
    let program: CelProgram;
    try {
      program = admissionProgram(expression, kind, env);
    } catch (error) {
      return { ok: false, error: (error as Error).message };
    }
    for (let round = 0; round <= MAX_AUTHORIZATION_ROUNDS; round++) {
      let outcome: ReturnType<CelProgram['evaluateWithCost']>;
      try {
        outcome = program.evaluateWithCost(this.bindings, PER_CALL_COST_LIMIT);
      } catch (error) {
        if (!(error instanceof PendingAuthorization)) throw error;
        await this.answers.answer(error.check);
        continue;
      }
      if (outcome.cost > this.budget.remaining) {
        this.budget.remaining = -1;
        return { ok: false, error: 'validation failed due to running out of cost budget, no further validation rules will be run' };
      }
      this.budget.remaining -= outcome.cost;
      return outcome.ok ? { ok: true, value: outcome.value } : { ok: false, error: outcome.error };
    }
    return { ok: false, error: 'authorization checks did not settle' };
  }
}

/** Whether every match condition holds; an error is returned for the failure policy to judge. */
export async function matchConditionsHold(
  context: AdmissionCelContext,
  conditions: readonly { name: string; expression: string }[] | undefined,
  env: AdmissionEnvironment,
): Promise<boolean | string> {
  const bounded = context.forMatchConditions();
  for (const condition of conditions ?? []) {
    // Kubernetes compiles a match condition trimmed.
    const out = await bounded.evaluate(condition.expression.trim(), 'matchCondition', env);
    if (!out.ok) return `matchCondition '${condition.name}' resulted in error: ${out.error}`;
    if (out.value !== true) return false;
  }
  return true;
}
