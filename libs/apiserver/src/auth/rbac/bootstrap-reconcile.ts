import { isStatusError } from '@svc/machinery';
import { ensureNamespace } from '../../registry/core/namespace/bootstrap-namespaces';
import type { ResourceRegistry } from '../../registry/resource-registry';
import {
  AUTOUPDATE_ANNOTATION,
  bootstrapClusterRoleBindingObjects,
  bootstrapClusterRoleObjects,
  bootstrapRoleBindingObjects,
  bootstrapRoleObjects,
} from './bootstrap-policy';
import { covers, rulesOf } from './policy-rules';

const FIELD_MANAGER = 'svc-apiserver';
const ATTEMPTS = 30;
const RETRY_DELAY_MS = 1_000;

/** Where the bootstrap policy is written. */
export interface BootstrapPolicyRegistries {
  clusterRoles: ResourceRegistry;
  clusterRoleBindings: ResourceRegistry;
  roles: ResourceRegistry;
  roleBindings: ResourceRegistry;
  /** The namespaces of the bootstrap Roles are made when missing, as Kubernetes does. */
  namespaces: ResourceRegistry;
}

/**
 * Kubernetes' `rbac/bootstrap-roles` post-start hook: every bootstrap ClusterRole and
 * ClusterRoleBinding exists, and every bootstrap Role and RoleBinding in its namespace; one that was
 * changed gets back what it lost (missing rules, subjects) unless its autoupdate annotation says `"false"`.
 */
export async function ensureBootstrapPolicy(registries: BootstrapPolicyRegistries): Promise<void> {
  const { clusterRoles, clusterRoleBindings, roles, roleBindings, namespaces } = registries;
  for (let attempt = 1; ; attempt++) {
    try {
      for (const role of bootstrapClusterRoleObjects()) await reconcile(clusterRoles, role, mergeRole);
      for (const binding of bootstrapClusterRoleBindingObjects()) await reconcile(clusterRoleBindings, binding, mergeBinding);
      const namespaced = [...bootstrapRoleObjects(), ...bootstrapRoleBindingObjects()];
      for (const namespace of new Set(namespaced.map(namespaceOf))) await ensureNamespace(namespaces, namespace);
      for (const role of bootstrapRoleObjects()) await reconcile(roles, role, mergeRole);
      for (const binding of bootstrapRoleBindingObjects()) await reconcile(roleBindings, binding, mergeBinding);
      return;
    } catch (error) {
      if (attempt >= ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
    }
  }
}

type Merge = (wanted: Record<string, unknown>, current: Record<string, unknown>) => Record<string, unknown> | undefined;

function namespaceOf(object: Record<string, unknown>): string {
  return (object.metadata as { namespace?: string }).namespace ?? '';
}

async function reconcile(registry: ResourceRegistry, wanted: Record<string, unknown>, merge: Merge): Promise<void> {
  const name = (wanted.metadata as { name: string }).name;
  const namespace = namespaceOf(wanted);
  let current: Record<string, unknown>;
  try {
    current = await registry.get(namespace, name);
  } catch (error) {
    if (!isStatusError(error) || error.code !== 404) throw error;
    try {
      await registry.create(namespace, { value: wanted }, { fieldManager: FIELD_MANAGER });
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
    await registry.update(namespace, name, { value: next }, { fieldManager: FIELD_MANAGER });
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
