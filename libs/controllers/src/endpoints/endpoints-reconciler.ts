import type { Endpoints, Pod, Service } from '@svc/api';
import { BUILTIN_RESOURCES, Client, ignoreNotFound, type ResourceClient } from '@svc/client';
import { isNamespaceTerminating, isForbidden, errorMessage } from '@svc/machinery';
import { EventRecorder, Reconciler, type CacheReader, type Reconcile, type ReconcileContext, type Request, type Result } from '@svc/runtime';
import { desiredSubsets, isHeadless, subsetsEqual, truncateSubsets } from './endpoint-subsets';
import { EndpointsOptions } from './endpoints-options';
import { PodEndpointsChanged } from './pod-endpoint-changes';
import { formatTriggerTime, LAST_CHANGE_TRIGGER_TIME_ANNOTATION, TriggerTimeTracker } from './trigger-time-tracker';

/** The label Kubernetes puts on the Endpoints of a headless service (kube-proxy skips them). */
export const HEADLESS_SERVICE_LABEL = 'service.kubernetes.io/headless';
/** Set when the Endpoints holds fewer addresses than the pods offer (more than 1000). */
export const OVER_CAPACITY_ANNOTATION = 'endpoints.kubernetes.io/over-capacity';
/** Endpoints used as a leader-election lock carry it; they never have a service and are never cleaned up. */
const LEADER_ELECTION_ANNOTATION = 'control-plane.alpha.kubernetes.io/leader';

function sameRecord(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean {
  const ak = Object.keys(a ?? {});
  return ak.length === Object.keys(b ?? {}).length && ak.every((k) => a?.[k] === b?.[k]);
}

function selects(selector: Readonly<Record<string, string>> | undefined, labels: Readonly<Record<string, string>> | undefined): boolean {
  const entries = Object.entries(selector ?? {});
  return entries.length > 0 && entries.every(([k, v]) => labels?.[k] === v);
}

/** The service's labels, with the headless label when clusterIP is None (never without: there is no IP allocator to tell "unset" from "none"). */
function endpointsLabels(service: Service): Record<string, string> {
  const labels: Record<string, string> = { ...(service.metadata?.labels ?? {}) };
  if (isHeadless(service)) labels[HEADLESS_SERVICE_LABEL] = '';
  else delete labels[HEADLESS_SERVICE_LABEL];
  return labels;
}

/** The services of the pod's namespace whose selector matches it. */
export function servicesSelecting(cache: CacheReader, pod: Pod): Request[] {
  const namespace = pod.metadata?.namespace;
  if (!namespace) return [];
  return cache
    .list(BUILTIN_RESOURCES.services, { namespace })
    .filter((s) => selects(s.spec?.selector, pod.metadata?.labels))
    .map((s) => ({ namespace, name: s.metadata!.name! }));
}

/**
 * Kubernetes' endpoints controller: for each Service with a selector, an Endpoints of the same name
 * holding the selected pods' addresses (ready in `addresses`, others in `notReadyAddresses`) per
 * resolved target port. Reads only the shared caches; writes only when the content changed.
 */
@Reconciler({
  name: 'endpoints',
  for: BUILTIN_RESOURCES.services,
  // Pod changes wake the services selecting the pod (before and after the change: the framework
  // maps both objects of an update); Endpoints are not owned (no ownerReference), so a change of
  // one wakes the service of the same name.
  watches: [
    {
      resource: BUILTIN_RESOURCES.pods,
      mapTo: (pod, _r: unknown, cache) => servicesSelecting(cache, pod),
      predicates: [PodEndpointsChanged],
      // --endpoint-updates-batch-period: pod changes within it make one update of the Endpoints.
      delay: (r: EndpointsReconciler) => r.batchPeriodMs,
    },
    { resource: BUILTIN_RESOURCES.endpoints, mapTo: (endpoints, r: EndpointsReconciler, cache) => r.serviceOfEndpoints(cache, endpoints) },
  ],
})
export class EndpointsReconciler implements Reconcile {
  private readonly endpointsClient: ResourceClient<Endpoints>;
  private readonly events: EventRecorder;
  private readonly triggerTimes = new TriggerTimeTracker();
  /** Endpoints created before this (s since epoch) and without a service are leftovers of services deleted while we were away. */
  private readonly startedAtSeconds = Math.floor(Date.now() / 1000);

  /** `--endpoint-updates-batch-period` in ms (0: every pod change is handled at once). */
  readonly batchPeriodMs: number;

  constructor(client: Client, options: EndpointsOptions) {
    this.batchPeriodMs = options.batchPeriodMs;
    this.endpointsClient = client.endpoints;
    this.events = new EventRecorder(client, { component: 'endpoint-controller' });
  }

  /**
   * The service of the same name, to put its Endpoints back when changed or deleted by someone
   * else. An Endpoints without a service is left to whoever wrote it (a service without selector may
   * come later), except one older than this controller: a leftover of a service deleted while it
   * was not running, removed as Kubernetes' startup check does.
   */
  serviceOfEndpoints(cache: CacheReader, endpoints: Endpoints): Request[] {
    const namespace = endpoints.metadata?.namespace;
    const name = endpoints.metadata?.name;
    if (!namespace || !name) return [];
    if (cache.get(BUILTIN_RESOURCES.services, { namespace, name })) return [{ namespace, name }];
    if (endpoints.metadata?.annotations?.[LEADER_ELECTION_ANNOTATION] !== undefined) return [];
    const created = Date.parse(endpoints.metadata?.creationTimestamp ?? '');
    return Number.isFinite(created) && created / 1000 < this.startedAtSeconds ? [{ namespace, name }] : [];
  }

  async reconcile({ namespace, name }: Request, { cache }: ReconcileContext): Promise<Result> {
    if (!namespace) return {};
    const key = `${namespace}/${name}`;
    const service = cache.get(BUILTIN_RESOURCES.services, { namespace, name });
    if (!service) {
      this.triggerTimes.forget(key);
      if (cache.get(BUILTIN_RESOURCES.endpoints, { namespace, name })) await this.endpointsClient.delete(name, { namespace }).catch(ignoreNotFound);
      return {};
    }
    // ExternalName services have no endpoints; services without a selector have theirs written by hand.
    if (service.spec?.type === 'ExternalName') return {};
    const selector = service.spec?.selector;
    if (!selector || Object.keys(selector).length === 0) return {};

    // The pod cache is indexed by namespace: a service reads the pods of its namespace only.
    const pods = cache.list(BUILTIN_RESOURCES.pods, { namespace, labelSelector: selector });
    const triggerTime = this.triggerTimes.compute(key, service, pods);
    const { subsets, truncated } = truncateSubsets(desiredSubsets(service, pods));
    const labels = endpointsLabels(service);
    const current = cache.get(BUILTIN_RESOURCES.endpoints, { namespace, name });
    const currentlyTruncated = current?.metadata?.annotations?.[OVER_CAPACITY_ANNOTATION] !== undefined;
    if (current && subsetsEqual(current.subsets, subsets) && sameRecord(current.metadata?.labels, labels) && currentlyTruncated === truncated) return {};

    const annotations: Record<string, string> = { ...(current?.metadata?.annotations ?? {}) };
    if (triggerTime > 0) annotations[LAST_CHANGE_TRIGGER_TIME_ANNOTATION] = formatTriggerTime(triggerTime);
    else delete annotations[LAST_CHANGE_TRIGGER_TIME_ANNOTATION];
    if (truncated) annotations[OVER_CAPACITY_ANNOTATION] = 'truncated';
    else delete annotations[OVER_CAPACITY_ANNOTATION];
    const metadata: NonNullable<Endpoints['metadata']> = current ? structuredClone(current.metadata ?? {}) : { name, namespace };
    metadata.labels = labels;
    if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
    else delete metadata.annotations;
    const next: Endpoints = { apiVersion: 'v1', kind: 'Endpoints', metadata, subsets };

    try {
      if (current) await this.endpointsClient.update(next, { namespace });
      else await this.endpointsClient.create(next, { namespace });
    } catch (error) {
      // Nothing can be created in a terminating namespace; its content is going anyway.
      if (!current && isForbidden(error) && isNamespaceTerminating(error)) return {};
      if (current) await this.events.warning(next, 'FailedToUpdateEndpoint', `Failed to update endpoint ${key}: ${errorMessage(error)}`);
      else await this.events.warning(next, 'FailedToCreateEndpoint', `Failed to create endpoint for service ${key}: ${errorMessage(error)}`);
      throw error;
    }
    return {};
  }
}
