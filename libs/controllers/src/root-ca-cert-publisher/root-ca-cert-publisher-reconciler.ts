import { BUILTIN_RESOURCES, Client } from '@svc/client';
import { isAlreadyExists, isForbidden, isNotFound } from '@svc/machinery';
import { Reconciler, type Reconcile, type ReconcileContext, type Request, type Result } from '@svc/runtime';
import { RootCaBundle } from './root-ca-bundle';

/** The ConfigMap every namespace gets, under Kubernetes' name (projected token volumes name it). */
export const ROOT_CA_CONFIG_MAP = 'kube-root-ca.crt';
export const ROOT_CA_KEY = 'ca.crt';
const DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the API server when using internal endpoints such as the internal service IP or kubernetes.default.svc. ' +
  'No other usage is guaranteed across distributions of clusters.';

/**
 * Kubernetes' root CA certificate publisher: every namespace not being deleted holds the
 * `kube-root-ca.crt` ConfigMap with the cluster's CA bundle under `ca.crt`, made when the namespace
 * appears and put back as written when the ConfigMap is changed or deleted.
 */
@Reconciler({
  name: 'root-ca-cert-publisher',
  for: BUILTIN_RESOURCES.namespaces,
  watches: [
    {
      resource: BUILTIN_RESOURCES.configMaps,
      mapTo: (map) => (map.metadata?.name === ROOT_CA_CONFIG_MAP && map.metadata.namespace ? [{ name: map.metadata.namespace }] : []),
    },
  ],
})
export class RootCaCertPublisherReconciler implements Reconcile {
  private readonly bundle: string;

  constructor(
    private readonly client: Client,
    options: RootCaBundle,
  ) {
    this.bundle = options.pem;
  }

  async reconcile({ name }: Request, { cache }: ReconcileContext): Promise<Result> {
    const namespace = cache.get(BUILTIN_RESOURCES.namespaces, { name });
    if (!this.bundle || !namespace || namespace.metadata?.deletionTimestamp) return {};
    const current = cache.get(BUILTIN_RESOURCES.configMaps, { namespace: name, name: ROOT_CA_CONFIG_MAP });
    try {
      if (!current) {
        await this.client.configMaps.create(
          {
            metadata: { name: ROOT_CA_CONFIG_MAP, namespace: name, annotations: { [DESCRIPTION_ANNOTATION]: DESCRIPTION } },
            data: { [ROOT_CA_KEY]: this.bundle },
          },
          { namespace: name },
        );
        return {};
      }
      const data = current.data ?? {};
      const exact = Object.keys(data).length === 1 && data[ROOT_CA_KEY] === this.bundle && !current.binaryData;
      if (exact && current.metadata?.annotations?.[DESCRIPTION_ANNOTATION] !== undefined) return {};
      const copy = structuredClone(current);
      copy.data = { [ROOT_CA_KEY]: this.bundle };
      delete copy.binaryData;
      copy.metadata = {
        ...copy.metadata,
        annotations: { ...copy.metadata?.annotations, [DESCRIPTION_ANNOTATION]: copy.metadata?.annotations?.[DESCRIPTION_ANNOTATION] ?? DESCRIPTION },
      };
      await this.client.configMaps.update(copy, { namespace: name });
    } catch (error) {
      // The namespace began terminating, or the cache was behind: the next event brings it right.
      if (isAlreadyExists(error) || isNotFound(error) || isForbidden(error)) return {};
      throw error;
    }
    return {};
  }
}
