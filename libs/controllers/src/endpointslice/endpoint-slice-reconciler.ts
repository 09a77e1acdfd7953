import { ENDPOINT_SLICE_MANAGED_BY_LABEL, ENDPOINT_SLICE_SERVICE_NAME_LABEL, type EndpointSlice, type Service } from '@svc/api';
import { BUILTIN_RESOURCES, Client, ignoreNotFound, type ResourceClient } from '@svc/client';
import { isNamespaceTerminating, isForbidden, jsonEqual } from '@svc/machinery';
import { Reconciler, setControllerReference, type Reconcile, type ReconcileContext, type Request, type Result } from '@svc/runtime';
import { desiredSlices, sliceMatches, type DesiredSlice } from './desired-slices';
import { EndpointSliceOptions } from './endpoint-slice-options';

/** The managed-by value of the slices this controller writes (Kubernetes' endpointslice controller's). */
export const ENDPOINT_SLICE_CONTROLLER_NAME = 'endpointslice-controller.k8s.io';
/** Endpoints whose slices someone else writes (the API server for the `kubernetes` Service) carry it. */
const SKIP_MIRROR_LABEL = 'endpointslice.kubernetes.io/skip-mirror';
const HEADLESS_SERVICE_LABEL = 'service.kubernetes.io/headless';

/**
 * EndpointSlices for each Service (discovery/v1, what kube-proxy and `kubectl describe service` read),
 * derived from the Service's Endpoints: the endpoints controller already resolves selected pods and
 * target ports there, and an Endpoints written by hand for a Service without selector is mirrored
 * the same way (Kubernetes' mirroring controller). Slices carry the Service's labels, its name
 * label, the managed-by label and the Service as controlling owner, so they go with it.
 */
@Reconciler({
  name: 'endpointslice',
  for: BUILTIN_RESOURCES.services,
  watches: [
    {
      resource: BUILTIN_RESOURCES.endpoints,
      mapTo: (endpoints) => [{ namespace: endpoints.metadata?.namespace ?? '', name: endpoints.metadata?.name ?? '' }],
      delay: (r: EndpointSliceReconciler) => r.batchPeriodMs,
    },
    {
      resource: BUILTIN_RESOURCES.endpointSlices,
      mapTo: (slice) => {
        const service = slice.metadata?.labels?.[ENDPOINT_SLICE_SERVICE_NAME_LABEL];
        return service ? [{ namespace: slice.metadata?.namespace ?? '', name: service }] : [];
      },
    },
  ],
})
export class EndpointSliceReconciler implements Reconcile {
  private readonly client: ResourceClient<EndpointSlice>;
  private readonly maxPerSlice: number;
  /** `--endpointslice-updates-batch-period` in ms. */
  readonly batchPeriodMs: number;

  constructor(client: Client, options: EndpointSliceOptions) {
    this.client = client.endpointSlices;
    this.maxPerSlice = options.maxEndpointsPerSlice;
    this.batchPeriodMs = options.batchPeriodMs;
  }

  async reconcile({ namespace, name }: Request, { cache }: ReconcileContext): Promise<Result> {
    if (!namespace || !name) return {};
    const ours = cache
      .list(BUILTIN_RESOURCES.endpointSlices, { namespace, labelSelector: { [ENDPOINT_SLICE_SERVICE_NAME_LABEL]: name } })
      .filter((s) => s.metadata?.labels?.[ENDPOINT_SLICE_MANAGED_BY_LABEL] === ENDPOINT_SLICE_CONTROLLER_NAME);
    const service = cache.get(BUILTIN_RESOURCES.services, { namespace, name });
    const endpoints = cache.get(BUILTIN_RESOURCES.endpoints, { namespace, name });
    const skipped = endpoints?.metadata?.labels?.[SKIP_MIRROR_LABEL] === 'true';
    // No Service, an ExternalName one, or one whose slices the API server writes: none of ours.
    const desired = !service || service.spec?.type === 'ExternalName' || skipped ? [] : desiredSlices(name, endpoints, this.maxPerSlice);
    const wanted = new Set(desired.map((d) => d.name));
    for (const slice of ours) {
      const sliceName = slice.metadata?.name ?? '';
      if (!wanted.has(sliceName)) await this.client.delete(sliceName, { namespace }).catch(ignoreNotFound);
    }
    for (const d of desired)
      await this.ensure(
        service!,
        d,
        ours.find((s) => s.metadata?.name === d.name),
      );
    return {};
  }

  private labelsFor(service: Service): Record<string, string> {
    const labels: Record<string, string> = { ...(service.metadata?.labels ?? {}) };
    labels[ENDPOINT_SLICE_SERVICE_NAME_LABEL] = service.metadata?.name ?? '';
    labels[ENDPOINT_SLICE_MANAGED_BY_LABEL] = ENDPOINT_SLICE_CONTROLLER_NAME;
    if (service.spec?.clusterIP === 'None') labels[HEADLESS_SERVICE_LABEL] = '';
    return labels;
  }

  private async ensure(service: Service, desired: DesiredSlice, current: EndpointSlice | undefined): Promise<void> {
    const namespace = service.metadata?.namespace ?? '';
    const labels = this.labelsFor(service);
    if (current && sliceMatches(current, desired) && jsonEqual(current.metadata?.labels ?? {}, labels)) return;
    if (current && current.addressType !== desired.addressType) {
      // The address type is immutable: the slice is replaced.
      await this.client.delete(desired.name, { namespace }).catch(ignoreNotFound);
      current = undefined;
    }
    const metadata = current ? { ...structuredClone(current.metadata ?? {}), labels } : { name: desired.name, namespace, labels };
    const next = setControllerReference(service, {
      apiVersion: 'discovery.svc.io/v1',
      kind: 'EndpointSlice',
      metadata,
      addressType: desired.addressType,
      endpoints: desired.endpoints,
      ports: desired.ports,
    });
    try {
      if (current) await this.client.update(next, { namespace });
      else await this.client.create(next, { namespace });
    } catch (error) {
      // Nothing can be created in a terminating namespace; its content is going anyway.
      if (!current && isForbidden(error) && isNamespaceTerminating(error)) return;
      throw error;
    }
  }
}
