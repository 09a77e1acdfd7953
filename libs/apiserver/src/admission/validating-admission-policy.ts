import {
  policyEnvironments,
  type MatchResources,
  type PolicyEnvironments,
  type ValidatingAdmissionPolicy,
  type ValidatingAdmissionPolicyBinding,
} from '@svc/api';
import { newForbidden, type StatusReason } from '@svc/machinery';
import { admittedName } from './pod-admission';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';
import { AdmissionCelContext, matchConditionsHold, type AdmissionAuthorizer } from './admission-cel';
import { namespaceSelectorMatches, objectSelectorMatches, rulesMatch } from './admission-match';
import type { ConfigurationSource } from './configuration-source';
import type { ParamSource } from './policy-params';
import type { NamespaceLookup } from './namespace-lifecycle';

const REASON_CODES: Record<string, number> = { Unauthorized: 401, Forbidden: 403, Invalid: 422, RequestEntityTooLarge: 413 };

/** The audit annotation a binding with the Audit action records a failed validation under. */
const VALIDATION_FAILURE_ANNOTATION = 'validation.policy.admission.k8s.io/validation_failure';

export interface PolicyDependencies {
  namespaces: NamespaceLookup;
  policies: ConfigurationSource<ValidatingAdmissionPolicy>;
  bindings: ConfigurationSource<ValidatingAdmissionPolicyBinding>;
  /** Reads the objects a binding's paramRef names; without it policies with a paramKind fail. */
  params?: ParamSource;
  /** Answers the `authorizer` of expressions for the request's user. */
  authorizer?: AdmissionAuthorizer;
}

async function matches(resources: MatchResources | undefined, attributes: AdmissionAttributes, namespaces: NamespaceLookup): Promise<boolean> {
  if (resources === undefined) return true;
  if (resources.resourceRules !== undefined && !rulesMatch(resources.resourceRules, attributes, resources.matchPolicy)) return false;
  if (rulesMatch(resources.excludeResourceRules, attributes, resources.matchPolicy)) return false;
  if (!objectSelectorMatches(resources.objectSelector, attributes)) return false;
  return namespaceSelectorMatches(resources.namespaceSelector, attributes, namespaces);
}

type Outcome = { passed: true } | { passed: false; message: string } | { error: string };

async function check(
  context: AdmissionCelContext,
  envs: PolicyEnvironments,
  expression: string,
  messageExpression: string | undefined,
  message: string | undefined,
): Promise<Outcome> {
  const result = await context.evaluate(expression, 'validation', envs.expressions);
  if (!result.ok) return { error: `expression '${expression}' resulted in error: ${result.error}` };
  if (result.value === true) return { passed: true };
  if (result.value !== false) return { error: `expression '${expression}' resulted in error: expected a bool` };
  let text = message ?? `failed expression: ${expression}`;
  if (messageExpression !== undefined) {
    // A messageExpression that fails or gives no text falls back to the message, as in Kubernetes.
    const out = await context.evaluate(messageExpression, 'messageExpression', envs.messages);
    if (out.ok && typeof out.value === 'string' && out.value.trim() !== '') text = out.value.replace(/[\r\n]+/g, ' ').slice(0, 5000);
  }
  return { passed: false, message: text };
}

/** A policy's variables in order, each seeing the ones before it; one that fails is left out (reading it is an error). */
async function withVariables(
  context: AdmissionCelContext,
  envs: PolicyEnvironments,
  variables: readonly { name: string; expression: string }[] | undefined,
): Promise<AdmissionCelContext> {
  if (variables === undefined || variables.length === 0) return context;
  const values: Record<string, unknown> = {};
  let current = context.withVariables(values);
  for (let i = 0; i < variables.length; i++) {
    const v = variables[i];
    const out = await current.evaluate(v.expression, 'variable', envs.variables[i]);
    if (out.ok) values[v.name] = out.value;
    current = context.withVariables(values);
  }
  return current;
}

const NO_PARAMS = 'no params found for policy binding';

/**
 * The params each validation runs with: `[null]` for a policy without paramKind, the objects the
 * binding's paramRef names otherwise, or why there are none (a text: an error, or no params found
 * with parameterNotFoundAction Deny).
 */
async function paramsOf(
  policy: ValidatingAdmissionPolicy,
  binding: ValidatingAdmissionPolicyBinding,
  attributes: AdmissionAttributes,
  source: ParamSource | undefined,
): Promise<unknown[] | string> {
  const paramKind = policy.spec?.paramKind;
  if (paramKind === undefined) return [null];
  const ref = binding.spec?.paramRef;
  if (ref === undefined) return `failed to configure binding: paramRef is required for policy with paramKind ${paramKind.apiVersion}, Kind=${paramKind.kind}`;
  if (source === undefined) return 'params cannot be read';
  let found: unknown[];
  try {
    // A param of a namespaced kind without a namespace is looked for in the request's namespace, as Kubernetes does.
    found = await source({ ...paramKind, namespace: ref.namespace ?? attributes.namespace, name: ref.name, selector: ref.selector });
  } catch (error) {
    return `failed to read params: ${(error as Error).message}`;
  }
  if (found.length > 0) return found;
  return (ref.parameterNotFoundAction ?? 'Deny') === 'Deny' ? `${NO_PARAMS} with 'Deny' parameterNotFoundAction` : [];
}

/**
 * Kubernetes' ValidatingAdmissionPolicy: each binding (by name) whose policy and match resources
 * cover the request runs the policy's CEL validations with `object`, `oldObject`, `request` and
 * `namespaceObject`; a failed validation is refused (Deny) or returned as a warning (Warn).
 */
export function validatingAdmissionPolicy(deps: PolicyDependencies): AdmissionPlugin {
  return {
    name: 'ValidatingAdmissionPolicy',
    async validate(attributes) {
      if (/^admissionregistration\.(svc|k8s)\.io$/.test(attributes.definition.group)) return;
      const bindings = await deps.bindings();
      if (bindings.length === 0) return;
      const policies = new Map((await deps.policies()).map((p) => [p.metadata?.name ?? '', p]));
      let requestContext: AdmissionCelContext | undefined;
      for (const binding of bindings) {
        const policy = policies.get(binding.spec?.policyName ?? '');
        if (policy?.spec === undefined || binding.spec === undefined) continue;
        if (!(await matches(policy.spec.matchConstraints, attributes, deps.namespaces))) continue;
        if (!(await matches(binding.spec.matchResources, attributes, deps.namespaces))) continue;
        requestContext ??= await AdmissionCelContext.of(attributes, deps.namespaces, deps.authorizer);
        const failOpen = (policy.spec.failurePolicy ?? 'Fail') === 'Ignore';
        const envs = policyEnvironments(policy.spec);
        const matched = await matchConditionsHold(requestContext, policy.spec.matchConditions, envs.conditions);
        if (matched === false) continue;
        // A failure without a reason of its own answers Invalid (422), as Kubernetes' policy decisions do.
        const failures: Array<{ text: string; reason: string; index: number }> = [];
        const fail = (text: string, reason = '', index = 0) => failures.push({ text, reason, index });
        if (typeof matched === 'string') {
          if (!failOpen) fail(matched);
        } else {
          const params = await paramsOf(policy, binding, attributes, deps.params);
          if (typeof params === 'string') {
            if (!failOpen || params.startsWith(NO_PARAMS)) fail(params);
          } else {
            // One budget for all the binding's evaluations, as Kubernetes' RuntimeCELCostBudget per binding.
            const bindingContext = requestContext.forBinding();
            for (const param of params) {
              const context = await withVariables(bindingContext.withParams(param), envs, policy.spec.variables);
              const validations = policy.spec.validations ?? [];
              for (let index = 0; index < validations.length; index++) {
                const validation = validations[index];
                const outcome = await check(context, envs, validation.expression, validation.messageExpression, validation.message);
                if ('error' in outcome) {
                  if (!failOpen) fail(outcome.error, '', index);
                } else if (!outcome.passed) fail(outcome.message, validation.reason ?? '', index);
              }
            }
          }
        }
        if (failures.length === 0) continue;
        const policyName = policy.metadata?.name ?? '';
        const bindingName = binding.metadata?.name ?? '';
        const actions = binding.spec.validationActions ?? [];
        if (actions.includes('Warn')) {
          for (const f of failures)
            attributes.warnings?.push(`Validation failed for ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}': ${f.text}`);
        }
        if (actions.includes('Audit') && attributes.auditAnnotations !== undefined) {
          // Kubernetes keeps the first failure under this key; its fields in the order its struct declares them.
          const first = failures[0];
          attributes.auditAnnotations[VALIDATION_FAILURE_ANNOTATION] ??= JSON.stringify([
            { expressionIndex: first.index, message: first.text, validationActions: actions, binding: bindingName, policy: policyName },
          ]);
        }
        if (actions.includes('Deny')) {
          // Kubernetes answers with the first failure, worded as a Forbidden of the object, under the failure's reason.
          const first = failures[0];
          const reason = (first.reason || 'Invalid') as StatusReason;
          const message = `ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}' denied request: ${first.text}`;
          const denied = newForbidden(attributes.definition, admittedName(attributes) || 'Unknown', message);
          denied.status.reason = reason;
          denied.status.code = REASON_CODES[reason] ?? 422;
          denied.status.details = { ...denied.status.details, causes: [...(denied.status.details?.causes ?? []), { message }] };
          throw denied;
        }
      }
    },
  };
}
