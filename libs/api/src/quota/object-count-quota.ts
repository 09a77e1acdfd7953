import { matchesNoScope, objectCountQuotaResourceName, type QuotaEvaluator } from './quota-evaluator';

/** The names quota knew these resources by before `count/` (Kubernetes' legacy object count aliases). */
const LEGACY_NAMES: Readonly<Record<string, string>> = {
  configmaps: 'configmaps',
  secrets: 'secrets',
  replicationcontrollers: 'replicationcontrollers',
  resourcequotas: 'resourcequotas',
};

/**
 * generic.NewObjectCountEvaluator: each object of any resource (custom ones included) counts once
 * against `count/<resource>.<group>`, and against its legacy name where it has one. Only creates
 * change the count.
 */
export function objectCountQuotaEvaluator(group: string, resource: string): QuotaEvaluator {
  const countName = objectCountQuotaResourceName(group, resource);
  const legacy = group === '' ? LEGACY_NAMES[resource] : undefined;
  const names = legacy === undefined ? [countName] : [countName, legacy];
  return {
    group,
    resource,
    handles: (operation, subresource) => operation === 'CREATE' && subresource === '',
    matchingResources: (input) => input.filter((n) => names.includes(n)),
    matchesScope: matchesNoScope,
    usage: () => Object.fromEntries(names.map((n) => [n, '1'])),
    constraints: () => undefined,
  };
}
