import type { EndpointSlice, Service } from '@svc/api';
import type { Client } from '@svc/client';
import { listerWatcherFor, SharedInformerFactory, type InformerLogger, type SharedInformer } from '@svc/informers';
import { SERVICE_NAME_LABEL, type ClusterView } from './cluster-view';

const BY_SERVICE = 'by-service';
const BY_NAMESPACE = 'by-namespace';

/** The cluster as the informers hold it; EndpointSlices indexed by their Service, Services by namespace. */
export class InformerClusterView implements ClusterView {
  private readonly factory: SharedInformerFactory;
  private readonly services: SharedInformer<Service>;
  private readonly endpointSlices: SharedInformer<EndpointSlice>;
  version = 0;

  constructor(client: Client, logger?: InformerLogger) {
    this.factory = new SharedInformerFactory({ defaultResyncPeriodMs: 0, logger });
    this.services = this.factory.informerFor<Service>({ resource: 'v1/services' }, () => listerWatcherFor(client.services, {}));
    this.endpointSlices = this.factory.informerFor<EndpointSlice>({ resource: 'discovery.k8s.io/v1/endpointslices' }, () =>
      listerWatcherFor(client.endpointSlices, {}),
    );
    this.services.addIndexers({ [BY_NAMESPACE]: (s) => [s.metadata?.namespace ?? ''] });
    this.endpointSlices.addIndexers({
      [BY_SERVICE]: (s) => {
        const name = s.metadata?.labels?.[SERVICE_NAME_LABEL];
        return name ? [`${s.metadata?.namespace ?? ''}/${name}`] : [];
      },
    });
    const changed = (): void => {
      this.version++;
    };
    const bump = { onAdd: changed, onUpdate: changed, onDelete: changed };
    this.services.addEventHandler(bump);
    this.endpointSlices.addEventHandler(bump);
  }

  /** Starts the informers and resolves once both caches have synced (retrying while the API server is away). */
  async start(log: (line: string) => void): Promise<void> {
    this.factory.start();
    for (;;) {
      const [services, slices] = await Promise.all([this.services.whenSynced(30_000), this.endpointSlices.whenSynced(30_000)]);
      if (services && slices) return;
      log(
        `waiting for the Service and EndpointSlice caches to sync: ${this.services.lastError?.message ?? this.endpointSlices.lastError?.message ?? 'no answer yet'}`,
      );
    }
  }

  stop(): Promise<void> {
    return this.factory.shutdown();
  }

  service(namespace: string, name: string): Service | undefined {
    return this.services.lister().namespace(namespace).get(name);
  }

  slices(namespace: string, service: string): readonly EndpointSlice[] {
    return this.endpointSlices.indexer.byIndex(BY_SERVICE, `${namespace}/${service}`);
  }

  hasNamespace(namespace: string): boolean {
    return this.services.indexer.byIndex(BY_NAMESPACE, namespace).length > 0;
  }

  allServices(): readonly Service[] {
    return this.services.lister().list();
  }
}
