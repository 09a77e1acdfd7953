import { isRecord } from '@svc/machinery';
import {
  isIntegerQuotaResource,
  ResourceQuotaSchema,
  ResourceQuotaScopes,
  STANDARD_QUOTA_RESOURCES,
  type ResourceQuota,
  type ResourceQuotaSpec,
} from '../../kinds/core/resource-quota';
import { canonicalQuantity } from '../../meta/quantity';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject } from '../kind-definition';
import { ageColumn, column, nameColumn } from '../table';
import { as, defineKind } from './define-kind';
import { isQuotaHugePageResourceName, validateResourceName, validateResourceQuantityValue } from './resource-names';

/** Kubernetes' IsStandardQuotaResourceName. */
function isStandardQuotaResourceName(name: string): boolean {
  return STANDARD_QUOTA_RESOURCES.has(name) || isQuotaHugePageResourceName(name);
}

/** Kubernetes' ValidateResourceQuotaResourceName. */
function validateQuotaResourceName(name: string, path: string): FieldError[] {
  const errors = validateResourceName(name, path);
  if (!name.includes('/') && !isStandardQuotaResourceName(name)) errors.push(fieldErrors.invalid(path, name, 'must be a standard resource for quota'));
  return errors;
}

function validateResourceList(list: unknown, path: string): FieldError[] {
  if (!isRecord(list)) return [];
  return Object.entries(list).flatMap(([name, value]) => [
    ...validateQuotaResourceName(name, `${path}[${name}]`),
    ...validateResourceQuantityValue(value, `${path}[${name}]`, isIntegerQuotaResource(name)),
  ]);
}

/** The resources a pod scope may limit (Kubernetes' podObjectCountQuotaResources and podComputeQuotaResources). */
const POD_COUNT_RESOURCES = new Set(['pods']);
const POD_COMPUTE_RESOURCES = new Set(['cpu', 'memory', 'limits.cpu', 'limits.memory', 'requests.cpu', 'requests.memory']);

/** Kubernetes' IsResourceQuotaScopeValidForResource. */
function scopeValidForResource(scope: string, resource: string): boolean {
  if (scope === 'BestEffort') return POD_COUNT_RESOURCES.has(resource);
  if ((ResourceQuotaScopes as readonly string[]).includes(scope)) return POD_COUNT_RESOURCES.has(resource) || POD_COMPUTE_RESOURCES.has(resource);
  return false;
}

const CONFLICTING_SCOPES = [
  ['BestEffort', 'NotBestEffort'],
  ['Terminating', 'NotTerminating'],
] as const;

/** Kubernetes' validateResourceQuotaScopes. */
function validateScopes(spec: ResourceQuotaSpec): FieldError[] {
  const scopes = spec.scopes ?? [];
  if (scopes.length === 0) return [];
  const errors: FieldError[] = [];
  const hard = Object.keys(spec.hard ?? {}).sort();
  for (const scope of scopes) {
    if (!(ResourceQuotaScopes as readonly string[]).includes(scope)) errors.push(fieldErrors.invalid('spec.scopes', scopes, 'unsupported scope'));
    for (const resource of hard) {
      if (isStandardQuotaResourceName(resource) && !scopeValidForResource(scope, resource)) {
        errors.push(fieldErrors.invalid('spec.scopes', scopes, 'unsupported scope applied to resource'));
      }
    }
  }
  for (const pair of CONFLICTING_SCOPES) {
    if (pair.every((s) => scopes.includes(s))) errors.push(fieldErrors.invalid('spec.scopes', scopes, 'conflicting scopes'));
  }
  return errors;
}

const EXISTS_ONLY_SCOPES = new Set(['BestEffort', 'NotBestEffort', 'Terminating', 'NotTerminating', 'CrossNamespacePodAffinity']);

/** Kubernetes' validateScopeSelector. */
function validateScopeSelector(spec: ResourceQuotaSpec): FieldError[] {
  const selector = spec.scopeSelector;
  if (selector === undefined) return [];
  const path = 'spec.scopeSelector';
  const errors: FieldError[] = [];
  const hard = Object.keys(spec.hard ?? {}).sort();
  const seen = new Set<string>();
  for (const req of selector.matchExpressions ?? []) {
    if (!(ResourceQuotaScopes as readonly string[]).includes(req.scopeName))
      errors.push(fieldErrors.invalid(`${path}.scopeName`, req.scopeName, 'unsupported scope'));
    for (const resource of hard) {
      if (isStandardQuotaResourceName(resource) && !scopeValidForResource(req.scopeName, resource)) {
        errors.push(fieldErrors.invalid(path, selector, 'unsupported scope applied to resource'));
      }
    }
    if (EXISTS_ONLY_SCOPES.has(req.scopeName) && req.operator !== 'Exists') {
      errors.push(
        fieldErrors.invalid(
          `${path}.operator`,
          req.operator,
          "must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
        ),
      );
    }
    switch (req.operator) {
      case 'In':
      case 'NotIn':
        if ((req.values ?? []).length === 0) {
          errors.push(fieldErrors.required(`${path}.values`, "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
        }
        break;
      case 'Exists':
      case 'DoesNotExist':
        if ((req.values ?? []).length !== 0) {
          errors.push(fieldErrors.invalid(`${path}.values`, req.values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"));
        }
        break;
      default:
        errors.push(fieldErrors.invalid(`${path}.operator`, req.operator, 'not a valid selector operator'));
    }
    seen.add(req.scopeName);
  }
  for (const pair of CONFLICTING_SCOPES) {
    if (pair.every((s) => seen.has(s))) errors.push(fieldErrors.invalid(path, selector, 'conflicting scopes'));
  }
  return errors;
}

/** ValidateResourceQuota (spec and status alike: a status write is checked as a create is). */
function validateResourceQuota(obj: ApiObject): FieldError[] {
  const quota = as<ResourceQuota>(obj);
  const spec = quota.spec ?? {};
  return [
    ...validateResourceList(spec.hard, 'spec.hard'),
    ...validateScopes(spec),
    ...validateScopeSelector(spec),
    ...validateResourceList(quota.status?.hard, 'status.hard'),
    ...validateResourceList(quota.status?.used, 'status.used'),
  ];
}

/** Kubernetes' resource name order for printing (SortableResourceNames: by name). */
function sortedNames(list: Record<string, unknown> | undefined): string[] {
  return Object.keys(list ?? {}).sort();
}

/** printResourceQuota's REQUEST and LIMIT cells: `name: used/hard` per hard resource, `limits.*` apart. */
function usageCells(quota: ResourceQuota): { request: string; limit: string } {
  const hard = quota.status?.hard ?? {};
  const used = quota.status?.used ?? {};
  const request: string[] = [];
  const limit: string[] = [];
  for (const name of sortedNames(hard)) {
    const pieces = name.split('.');
    const cell = `${name}: ${canonicalQuantity(used[name] ?? 0) ?? '0'}/${canonicalQuantity(hard[name]) ?? String(hard[name])}`;
    (pieces.length > 1 && pieces[0] === 'limits' ? limit : request).push(cell);
  }
  return { request: request.join(', '), limit: limit.join(', ') };
}

/** Kubernetes' ResourceQuota (v1): a namespace's caps, and what its objects use of them (kept by the quota controller). */
export const resourceQuotaDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'ResourceQuota',
  resource: 'resourcequotas',
  namespaced: true,
  shortNames: ['quota'],
  subresources: { status: true },
  schema: ResourceQuotaSchema,
  strategy: { tracksGeneration: false },
  columns: [
    nameColumn(),
    ageColumn(),
    column('Request', 'string', (o) => usageCells(as<ResourceQuota>(o)).request, {
      description: 'Request represents a minimum amount of cpu/memory that a container may consume.',
    }),
    column('Limit', 'string', (o) => usageCells(as<ResourceQuota>(o)).limit, {
      description: 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.',
    }),
  ],
  validationRules: [validateResourceQuota],
});
