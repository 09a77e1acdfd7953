import {
  addLists,
  formatResourceList,
  listsEqual,
  maskList,
  negativeNames,
  quotaEvaluatorFor,
  quotaMatches,
  removeZeros,
  subtractNonNegative,
  withinBounds,
  type QuotaEvaluator,
  type ResourceList,
  type ResourceQuota,
} from '@svc/api';
import { isConflict, jsonClone, kubernetesGroupName, newForbidden } from '@svc/machinery';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';
import { admittedName } from './pod-admission';

/** What the ResourceQuota plugin reads and writes of a namespace's quotas. */
export interface ResourceQuotaAccess {
  /** The namespace's quotas as stored now (a read consistent with the store). */
  list(namespace: string): Promise<readonly ResourceQuota[]>;
  /** Writes the quota's status if its resourceVersion is still the stored one; a 409 otherwise. */
  updateStatus(quota: ResourceQuota): Promise<void>;
}

/** How often a charge is tried again when another writer changed a quota meanwhile (Kubernetes tries 3). */
const CHARGE_ATTEMPTS = 5;

const sortedNames = (names: Iterable<string>): string => [...names].sort().join(',');

/** The quotas as they would be with the request admitted, or a refusal (Kubernetes' CheckRequest). */
export function checkQuotaRequest(quotas: readonly ResourceQuota[], attributes: AdmissionAttributes, evaluator: QuotaEvaluator, now: Date): ResourceQuota[] {
  const object = attributes.object ?? {};
  const forbid = (message: string) =>
    newForbidden(
      { group: kubernetesGroupName(attributes.definition.group) ?? attributes.definition.group, resource: attributes.definition.resource },
      admittedName(attributes),
      message,
    );
  const interesting: number[] = [];
  quotas.forEach((quota, i) => {
    if (!quotaMatches(quota, evaluator, object)) return;
    const restricted = evaluator.matchingResources(Object.keys(quota.status?.hard ?? {}));
    const unmet = evaluator.constraints(restricted, object);
    if (unmet !== undefined) throw forbid(`failed quota: ${quota.metadata?.name ?? ''}: ${unmet}`);
    const used = quota.status?.used ?? {};
    if (restricted.some((name) => !(name in used))) {
      throw forbid(`status unknown for quota: ${quota.metadata?.name ?? ''}, resources: ${sortedNames(restricted)}`);
    }
    interesting.push(i);
  });
  if (interesting.length === 0) return [...quotas];

  const usage = evaluator.usage(object, now);
  const negative = negativeNames(usage);
  if (negative.length > 0) throw forbid(`quota usage is negative for resource(s): ${sortedNames(negative)}`);

  const deltas = new Map<number, ResourceList>(interesting.map((i) => [i, usage]));
  if (attributes.operation === 'UPDATE' && attributes.oldObject?.metadata?.resourceVersion) {
    const old = attributes.oldObject;
    const delta = subtractNonNegative(usage, evaluator.usage(old, now));
    for (const i of interesting) if (quotaMatches(quotas[i], evaluator, old)) deltas.set(i, delta);
  }

  const out = quotas.map((q) => q);
  for (const i of interesting) {
    const delta = removeZeros(deltas.get(i)!);
    if (Object.keys(delta).length === 0) continue;
    const quota = quotas[i];
    const hard = quota.status?.hard ?? {};
    const requested = maskList(delta, Object.keys(hard));
    const used = quota.status?.used ?? {};
    const newUsed = addLists(used, requested);
    const { allowed, exceeded } = withinBounds(maskList(newUsed, Object.keys(requested)), hard);
    if (!allowed) {
      throw forbid(
        `exceeded quota: ${quota.metadata?.name ?? ''}, requested: ${formatResourceList(maskList(requested, exceeded))}, used: ${formatResourceList(
          maskList(used, exceeded),
        )}, limited: ${formatResourceList(maskList(hard, exceeded))}`,
      );
    }
    const copy = jsonClone(quota);
    copy.status = { ...(copy.status ?? {}), used: newUsed };
    out[i] = copy;
  }
  return out;
}

/** Runs `work` after every earlier piece of work of the same key (one namespace's charges, one at a time). */
function serialized<T>(lanes: Map<string, Promise<unknown>>, key: string, work: () => Promise<T>): Promise<T> {
  const previous = lanes.get(key) ?? Promise.resolve();
  const next = previous.then(work, work);
  const settled = next.then(
    () => undefined,
    () => undefined,
  );
  lanes.set(key, settled);
  void settled.then(() => {
    if (lanes.get(key) === settled) lanes.delete(key);
  });
  return next;
}

/** The request's resource as quota knows it: its Kubernetes group and resource. */
function evaluatorOf(attributes: AdmissionAttributes): QuotaEvaluator | undefined {
  const def = attributes.definition.aliasOf ?? attributes.definition;
  return quotaEvaluatorFor(kubernetesGroupName(def.group) ?? def.group, def.resource);
}

/** Whether the request creates a namespace (never charged: its quotas do not exist yet). */
function isNamespaceCreation(attributes: AdmissionAttributes): boolean {
  return attributes.operation === 'CREATE' && attributes.definition.group === '' && attributes.definition.resource === 'namespaces';
}

/**
 * Kubernetes' ResourceQuota admission plugin: a write that would take a namespace past a quota's
 * hard limits is refused (403, `exceeded quota: ...`), and an admitted one is charged to the quotas'
 * `status.used` before it is stored, with compare-and-swap on each quota's resourceVersion so that
 * concurrent writes, on this server or another, never admit more than the quota holds. A charge for
 * an object that is then not stored stays until the quota controller recalculates, as in Kubernetes.
 * One namespace's charges run one after another here, so they rarely conflict.
 */
export function resourceQuotaAdmission(access: ResourceQuotaAccess, clock: () => Date = () => new Date()): AdmissionPlugin {
  const lanes = new Map<string, Promise<unknown>>();
  return {
    name: 'ResourceQuota',
    async validate(attributes) {
      if (attributes.subresource !== '' || attributes.namespace === '' || isNamespaceCreation(attributes)) return;
      const evaluator = evaluatorOf(attributes);
      if (evaluator === undefined || !evaluator.handles(attributes.operation, attributes.subresource)) return;
      await serialized(lanes, attributes.namespace, () => charge(access, evaluator, attributes, clock));
    },
  };
}

async function charge(access: ResourceQuotaAccess, evaluator: QuotaEvaluator, attributes: AdmissionAttributes, clock: () => Date): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const quotas = await access.list(attributes.namespace);
    if (quotas.length === 0) return;
    const charged = checkQuotaRequest(quotas, attributes, evaluator, clock());
    if (attributes.dryRun) return;
    try {
      for (let i = 0; i < quotas.length; i++) {
        if (charged[i] !== quotas[i] && !listsEqual(charged[i].status?.used, quotas[i].status?.used)) await access.updateStatus(charged[i]);
      }
      return;
    } catch (error) {
      if (!isConflict(error) || attempt >= CHARGE_ATTEMPTS) throw error;
    }
  }
}
