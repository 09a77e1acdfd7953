import { listsEqual, podQuotaEvaluator, serviceQuotaEvaluator, type ApiObject, type Pod, type ResourceQuota, type Service } from '@svc/api';
import { BUILTIN_RESOURCES, Client } from '@svc/client';
import { isNotFound } from '@svc/machinery';
import { Reconciler, type CacheReader, type Predicate, type Reconcile, type ReconcileContext, type Request, type Result } from '@svc/runtime';
import { calculateQuotaUsage } from './quota-usage';
import { ResourceQuotaOptions } from './resource-quota-options';
import { ServedResources } from './served-resources';

export const RESOURCE_QUOTA_RECONCILER_NAME = 'resourcequota';

/** Quota's own status writes (admission's charges) do not call for a recalculation; a change of `spec.hard` does. */
const HardChanged: Predicate<ResourceQuota> = (event) => event.type !== 'update' || !listsEqual(event.oldObject.spec?.hard, event.object.spec?.hard);

/** Every quota of the object's namespace. */
function quotasOfNamespace(object: { metadata?: { namespace?: string } }, cache: CacheReader): Request[] {
  const namespace = object.metadata?.namespace ?? '';
  return cache.list(BUILTIN_RESOURCES.resourceQuotas, { namespace }).map((q) => ({ namespace, name: q.metadata?.name ?? '' }));
}

const Deleted: Predicate = (event) => event.type === 'delete';

/** A pod frees quota when deleted, or when it stops counting (a terminal phase, or past its deletion grace). */
const PodReleased: Predicate<Pod> = (event) => {
  if (event.type === 'delete') return true;
  if (event.type !== 'update') return false;
  const now = new Date();
  return !listsEqual(podQuotaEvaluator.usage(event.oldObject, now), podQuotaEvaluator.usage(event.object, now));
};

/** A Service frees quota when deleted, or when its type or ports change what it uses. */
const ServiceChanged: Predicate<Service> = (event) => {
  if (event.type === 'delete') return true;
  if (event.type !== 'update') return false;
  const now = new Date();
  return !listsEqual(serviceQuotaEvaluator.usage(event.oldObject, now), serviceQuotaEvaluator.usage(event.object, now));
};

/**
 * Kubernetes' resource quota controller: keeps each ResourceQuota's `status.hard` equal to its
 * `spec.hard` and recalculates `status.used` from the objects of its namespace, when a quota is made
 * or its limits change, when an object that frees quota is deleted or stops counting (the
 * replenishment Kubernetes' monitors do for pods, services, config maps, secrets and replication
 * controllers; others are caught by the periodic pass), and every `--resource-quota-sync-period`.
 * Objects are read from the API server at the moment of the recalculation, after the quota, and the
 * status is written with the quota's resourceVersion: a charge admission made meanwhile makes the
 * write conflict and the recalculation run again, so it never drops a charge it did not see.
 */
@Reconciler({
  name: RESOURCE_QUOTA_RECONCILER_NAME,
  for: BUILTIN_RESOURCES.resourceQuotas,
  predicates: [HardChanged],
  watches: [
    { resource: BUILTIN_RESOURCES.pods, mapTo: (o, _r: unknown, cache) => quotasOfNamespace(o, cache), predicates: [PodReleased] },
    { resource: BUILTIN_RESOURCES.services, mapTo: (o, _r: unknown, cache) => quotasOfNamespace(o, cache), predicates: [ServiceChanged] },
    { resource: BUILTIN_RESOURCES.configMaps, mapTo: (o, _r: unknown, cache) => quotasOfNamespace(o, cache), predicates: [Deleted] },
    { resource: BUILTIN_RESOURCES.secrets, mapTo: (o, _r: unknown, cache) => quotasOfNamespace(o, cache), predicates: [Deleted] },
    { resource: BUILTIN_RESOURCES.replicationControllers, mapTo: (o, _r: unknown, cache) => quotasOfNamespace(o, cache), predicates: [Deleted] },
  ],
})
export class ResourceQuotaReconciler implements Reconcile {
  private readonly served: ServedResources;

  constructor(
    private readonly client: Client,
    private readonly options: ResourceQuotaOptions,
  ) {
    this.served = new ServedResources(client);
  }

  async reconcile({ namespace = '', name }: Request, { cache }: ReconcileContext): Promise<Result> {
    if (!cache.get(BUILTIN_RESOURCES.resourceQuotas, { namespace, name })) return {};
    // Read as stored now, by a list (Kubernetes' role for this controller grants list and watch, not get).
    const listed = await this.client.resourceQuotas.list({ namespace, fieldSelector: `metadata.name=${name}` });
    const quota: ResourceQuota | undefined = listed.items[0];
    if (quota === undefined) return {};
    const used = await calculateQuotaUsage(quota, (group, resource) => this.objects(namespace, group, resource), new Date());
    const hard = quota.spec?.hard ?? {};
    if (!listsEqual(quota.status?.hard, hard) || !listsEqual(quota.status?.used, used)) {
      // A conflict (a charge written meanwhile) is an error: the request comes back with backoff and recalculates.
      await this.client.resourceQuotas.updateStatus({ ...quota, status: { hard: { ...hard }, used } });
    }
    return { requeueAfter: this.options.syncPeriodMs };
  }

  /** The namespace's objects of a resource, as stored now; undefined when the resource is not served. */
  private async objects(namespace: string, group: string, resource: string): Promise<readonly ApiObject[] | undefined> {
    const info = await this.served.find(group, resource);
    if (info === undefined || !info.namespaced) return undefined;
    try {
      return (await this.client.dynamic(info).listAll({ namespace })).items;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }
}
