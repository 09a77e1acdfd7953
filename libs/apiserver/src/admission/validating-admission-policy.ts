import {
  compileCel,
  estimateCost,
  PER_CALL_COST_LIMIT,
  shapeOfValue,
  type CelProgram,
  type MatchResources,
  type ValidatingAdmissionPolicy,
  type ValidatingAdmissionPolicyBinding,
} from '@svc/api';
import { failureStatus, StatusError, type StatusReason } from '@svc/machinery';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';
import { namespaceSelectorMatches, objectSelectorMatches, rulesMatch } from './admission-match';
import type { ConfigurationSource } from './configuration-source';
import type { NamespaceLookup } from './namespace-lifecycle';

const VARIABLES = ['object', 'oldObject', 'request', 'params', 'namespaceObject'];
const PROGRAM_CACHE_SIZE = 512;
const programs = new Map<string, CelProgram | Error>();

function program(expression: string): CelProgram {
  let found = programs.get(expression);
  if (found === undefined) {
    try {
      found = compileCel(expression, VARIABLES);
    } catch (error) {
      found = error as Error;
    }
    if (programs.size >= PROGRAM_CACHE_SIZE) programs.delete(programs.keys().next().value as string);
    programs.set(expression, found);
  }
  if (found instanceof Error) throw found;
  return found;
}

const REASON_CODES: Record<string, number> = { Unauthorized: 401, Forbidden: 403, Invalid: 422, RequestEntityTooLarge: 413 };

export interface PolicyDependencies {
  namespaces: NamespaceLookup;
  policies: ConfigurationSource<ValidatingAdmissionPolicy>;
  bindings: ConfigurationSource<ValidatingAdmissionPolicyBinding>;
}

async function matches(resources: MatchResources | undefined, attributes: AdmissionAttributes, namespaces: NamespaceLookup): Promise<boolean> {
  if (resources === undefined) return true;
  if (resources.resourceRules !== undefined && !rulesMatch(resources.resourceRules, attributes, resources.matchPolicy)) return false;
  if (rulesMatch(resources.excludeResourceRules, attributes, resources.matchPolicy)) return false;
  if (!objectSelectorMatches(resources.objectSelector, attributes)) return false;
  return namespaceSelectorMatches(resources.namespaceSelector, attributes, namespaces);
}

function requestOf(attributes: AdmissionAttributes): Record<string, unknown> {
  const { definition } = attributes;
  return {
    kind: { group: definition.group, version: definition.version, kind: definition.kind },
    resource: { group: definition.group, version: definition.version, resource: definition.resource },
    subResource: attributes.subresource,
    name: attributes.name,
    namespace: attributes.namespace,
    operation: attributes.operation,
    dryRun: attributes.dryRun,
    userInfo: { username: 'system:anonymous', groups: ['system:unauthenticated'] },
  };
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

type Outcome = { passed: true } | { passed: false; message: string; reason?: string } | { error: string };

function evaluate(
  expression: string,
  messageExpression: string | undefined,
  message: string | undefined,
  bindings: Record<string, unknown>,
  shapes: Parameters<typeof estimateCost>[1],
): Outcome {
  let compiled: CelProgram;
  try {
    compiled = program(expression);
  } catch (error) {
    return { error: `expression '${expression}' failed to compile: ${(error as Error).message}` };
  }
  if (estimateCost(compiled, shapes) > PER_CALL_COST_LIMIT)
    return { error: `expression '${expression}' resulted in error: operation cancelled: actual cost limit exceeded` };
  const result = compiled.evaluate(bindings);
  if (!result.ok) return { error: `expression '${expression}' resulted in error: ${result.error}` };
  if (result.value === true) return { passed: true };
  if (result.value !== false) return { error: `expression '${expression}' resulted in error: expected a bool` };
  let text = message ?? `failed expression: ${expression}`;
  if (messageExpression !== undefined) {
    try {
      const m = program(messageExpression);
      const out = estimateCost(m, shapes) <= PER_CALL_COST_LIMIT ? m.evaluate(bindings) : undefined;
      if (out?.ok && typeof out.value === 'string' && out.value.trim() !== '') text = out.value.slice(0, 5000);
    } catch {
      // A broken messageExpression falls back to the message, as in Kubernetes.
    }
  }
  return { passed: false, message: text };
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
      let context: { bindings: Record<string, unknown>; shapes: Parameters<typeof estimateCost>[1] } | undefined;
      for (const binding of bindings) {
        const policy = policies.get(binding.spec?.policyName ?? '');
        if (policy?.spec === undefined || binding.spec === undefined) continue;
        if (!(await matches(policy.spec.matchConstraints, attributes, deps.namespaces))) continue;
        if (!(await matches(binding.spec.matchResources, attributes, deps.namespaces))) continue;
        if (context === undefined) {
          const namespaceObject = attributes.namespace ? await deps.namespaces(attributes.namespace) : undefined;
          const object = attributes.operation === 'DELETE' ? null : (attributes.object ?? null);
          const oldObject = attributes.oldObject ?? null;
          context = {
            bindings: {
              object: toCel(object),
              oldObject: toCel(oldObject),
              request: toCel(requestOf(attributes)),
              params: null,
              namespaceObject: toCel(namespaceObject ?? null),
            },
            shapes: {
              object: shapeOfValue(object),
              oldObject: shapeOfValue(oldObject),
              request: shapeOfValue(requestOf(attributes)),
              namespaceObject: shapeOfValue(namespaceObject),
            },
          };
        }
        const policyName = policy.metadata?.name ?? '';
        const bindingName = binding.metadata?.name ?? '';
        const actions = binding.spec.validationActions ?? [];
        for (const validation of policy.spec.validations ?? []) {
          const outcome = evaluate(validation.expression, validation.messageExpression, validation.message, context.bindings, context.shapes);
          if ('passed' in outcome && outcome.passed) continue;
          if ('error' in outcome && (policy.spec.failurePolicy ?? 'Fail') === 'Ignore') continue;
          const text = 'error' in outcome ? outcome.error : (outcome as { message: string }).message;
          if (actions.includes('Warn'))
            attributes.warnings?.push(`Validation failed for ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}': ${text}`);
          if (actions.includes('Deny')) {
            const reason = ('error' in outcome ? 'Forbidden' : (validation.reason ?? 'Forbidden')) as StatusReason;
            const code = REASON_CODES[reason] ?? 403;
            throw new StatusError(
              failureStatus(code, reason, `ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}' denied request: ${text}`),
            );
          }
        }
      }
    },
  };
}
