import type { Client } from '@svc/client';
import { isRecord } from '@svc/machinery';

/** One container's usage in a PodMetrics (metrics.k8s.io/v1beta1): quantities by resource name. */
export interface ContainerMetrics {
  name: string;
  usage: Record<string, string | number>;
}

/** A PodMetrics of metrics.k8s.io/v1beta1, the fields the autoscaler reads. */
export interface PodMetrics {
  metadata: { name: string; namespace?: string };
  /** When the usage was measured (RFC 3339). */
  timestamp: string;
  /** Over how long, as a Go duration (`15s`). */
  window: string;
  containers: ContainerMetrics[];
}

/**
 * Where the horizontal-pod-autoscaler controller reads pods' usage: the resource metrics API
 * (`metrics.k8s.io/v1beta1` PodMetrics), as Kubernetes' resource metrics client reads it. Narrow on
 * purpose: the real source lists through the API server (which serves the group by aggregation to a
 * metrics server); tests may fill it themselves.
 */
export abstract class PodMetricsSource {
  /** The PodMetrics of the pods of `namespace` that `labelSelector` selects; throws when the API cannot answer. */
  abstract listPodMetrics(namespace: string, labelSelector: string): Promise<PodMetrics[]>;
}

/** PodMetrics listed from `/apis/metrics.k8s.io/v1beta1` through the controller's client. */
export class MetricsApiPodMetricsSource extends PodMetricsSource {
  constructor(private readonly client: Client) {
    super();
  }

  async listPodMetrics(namespace: string, labelSelector: string): Promise<PodMetrics[]> {
    const list = await this.client.rest.request<{ items?: unknown }>({
      method: 'GET',
      path: `/apis/metrics.k8s.io/v1beta1/namespaces/${encodeURIComponent(namespace)}/pods`,
      query: { labelSelector: labelSelector || undefined },
    });
    return Array.isArray(list.items) ? list.items.filter(isPodMetrics) : [];
  }
}

function isPodMetrics(value: unknown): value is PodMetrics {
  return isRecord(value) && isRecord(value.metadata) && typeof value.metadata.name === 'string' && Array.isArray(value.containers);
}
