import { isStatusError } from '@svc/machinery';
import type { ResourceRegistry } from '../../resources/registry';
import { AUTOUPDATE_ANNOTATION, bootstrapClusterRoleBindingObjects, bootstrapClusterRoleObjects } from './bootstrap-policy';
import { covers, rulesOf } from './policy-rules';

const FIELD_MANAGER = 'svc-apiserver';
const ATTEMPTS = 30;
const RETRY_DELAY_MS = 1_000;

/**
 * Kubernetes' `rbac/bootstrap-roles` post-start hook: every bootstrap ClusterRole and
 * ClusterRoleBinding exists; one that was changed gets back what it lost (missing rules, subjects)
 * unless its autoupdate annotation says `"false"`.
 */
export async function ensureBootstrapPolicy(clusterRoles: ResourceRegistry, clusterRoleBindings: ResourceRegistry): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      for (const role of bootstrapClusterRoleObjects()) await reconcile(clusterRoles, role, mergeRole);
      for (const binding of bootstrapClusterRoleBindingObjects()) await reconcile(clusterRoleBindings, binding, mergeBinding);
      return;
    } catch (error) {
      if (attempt >= ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
    }
  }
}

type Merge = (wanted: Record<string, unknown>, current: Record<string, unknown>) => Record<string, unknown> | undefined;

async function reconcile(registry: ResourceRegistry, wanted: Record<string, unknown>, merge: Merge): Promise<void> {
  const name = (wanted.metadata as { name: string }).name;
  let current: Record<string, unknown>;
  try {
    current = await registry.get('', name);
  } catch (error) {
    if (!isStatusError(error) || error.code !== 404) throw error;
    try {
      await registry.create('', { value: wanted }, { fieldManager: FIELD_MANAGER });
    } catch (createError) {
      if (!isStatusError(createError) || createError.code !== 409) throw createError;
    }
    return;
  }
  const annotations = (current.metadata as { annotations?: Record<string, string> } | undefined)?.annotations ?? {};
  if (annotations[AUTOUPDATE_ANNOTATION] === 'false') return;
  const next = merge(wanted, structuredClone(current));
  if (next === undefined) return;
  try {
    await registry.update('', name, { value: next }, { fieldManager: FIELD_MANAGER });
  } catch (error) {
    // Someone else wrote it meanwhile; the next start reconciles again.
    if (!isStatusError(error) || error.code !== 409) throw error;
  }
}

function mergeRole(wanted: Record<string, unknown>, current: Record<string, unknown>): Record<string, unknown> | undefined {
  const have = rulesOf(current);
  const missing = rulesOf(wanted).filter((rule) => !covers(have, [rule]).covered);
  const wantedAggregation = wanted.aggregationRule;
  const aggregationLost = wantedAggregation !== undefined && current.aggregationRule === undefined;
  if (missing.length === 0 && !aggregationLost) return undefined;
  current.rules = [...have, ...missing];
  if (aggregationLost) current.aggregationRule = wantedAggregation;
  return current;
}

function mergeBinding(wanted: Record<string, unknown>, current: Record<string, unknown>): Record<string, unknown> | undefined {
  const have = Array.isArray(current.subjects) ? (current.subjects as Array<{ kind?: string; name?: string; namespace?: string }>) : [];
  const missing = (wanted.subjects as Array<{ kind: string; name: string; namespace?: string }>).filter(
    (s) => !have.some((h) => h.kind === s.kind && h.name === s.name && (h.namespace ?? '') === (s.namespace ?? '')),
  );
  if (missing.length === 0) return undefined;
  current.subjects = [...have, ...missing];
  return current;
}
