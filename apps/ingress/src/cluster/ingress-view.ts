import {
  ENDPOINT_SLICE_SERVICE_NAME_LABEL,
  isDefaultIngressClass,
  type EndpointSlice,
  type Ingress,
  type IngressClass,
  type Secret,
  type Service,
} from '@svc/api';
import type { Client } from '@svc/client';
import { listerWatcherFor, SharedInformerFactory, type InformerLogger, type SharedInformer } from '@svc/informers';
import type { ServiceBackend } from '../routes/route-table';

const BY_SERVICE = 'by-service';

/** Which Ingresses are this controller's: its classes (by controller name), and those of no class. */
export interface ClassSelection {
  controllerName: string;
  /** Ingresses of no class: served when one of its classes is the default (`default`), always or never. */
  withoutClass: 'default' | 'always' | 'never';
}

/** A ready endpoint of a Service port: where a request is proxied. */
export interface Endpoint {
  address: string;
  port: number;
}

/** Why a backend has no endpoint to proxy to, for the 503's body and the log. */
export type Resolution = { endpoints: Endpoint[] } | { endpoints: []; reason: string };

/**
 * The cluster as the ingress controller reads it, through shared informers: IngressClasses, Ingresses,
 * Services, EndpointSlices (indexed by Service) and Secrets (for TLS). `version` changes with every event,
 * so that the route table and certificates are rebuilt only when something changed.
 */
export class IngressView {
  private readonly factory: SharedInformerFactory;
  private readonly classes: SharedInformer<IngressClass>;
  private readonly ingresses: SharedInformer<Ingress>;
  private readonly services: SharedInformer<Service>;
  private readonly slices: SharedInformer<EndpointSlice>;
  private readonly secrets: SharedInformer<Secret>;
  version = 0;
  private readonly listeners: Array<() => void> = [];

  constructor(
    client: Client,
    private readonly selection: ClassSelection,
    logger?: InformerLogger,
  ) {
    this.factory = new SharedInformerFactory({ defaultResyncPeriodMs: 0, logger });
    this.classes = this.factory.informerFor<IngressClass>({ resource: 'networking.k8s.io/v1/ingressclasses' }, () =>
      listerWatcherFor(client.ingressClasses, {}),
    );
    this.ingresses = this.factory.informerFor<Ingress>({ resource: 'networking.k8s.io/v1/ingresses' }, () => listerWatcherFor(client.ingresses, {}));
    this.services = this.factory.informerFor<Service>({ resource: 'v1/services' }, () => listerWatcherFor(client.services, {}));
    this.slices = this.factory.informerFor<EndpointSlice>({ resource: 'discovery.k8s.io/v1/endpointslices' }, () =>
      listerWatcherFor(client.endpointSlices, {}),
    );
    this.secrets = this.factory.informerFor<Secret>({ resource: 'v1/secrets' }, () => listerWatcherFor(client.secrets, {}));
    this.slices.addIndexers({
      [BY_SERVICE]: (s) => {
        const name = s.metadata?.labels?.[ENDPOINT_SLICE_SERVICE_NAME_LABEL];
        return name ? [`${s.metadata?.namespace ?? ''}/${name}`] : [];
      },
    });
    const changed = (): void => {
      this.version++;
      for (const listener of this.listeners) listener();
    };
    const bump = { onAdd: changed, onUpdate: changed, onDelete: changed };
    this.classes.addEventHandler(bump);
    this.ingresses.addEventHandler(bump);
    this.services.addEventHandler(bump);
    this.slices.addEventHandler(bump);
    this.secrets.addEventHandler(bump);
  }

  /** Called after every change the informers see. */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Starts the informers and resolves once every cache has synced (retrying while the API server is away). */
  async start(log: (line: string) => void): Promise<void> {
    this.factory.start();
    const all: Array<{ whenSynced(ms: number): Promise<boolean>; lastError?: Error }> = [
      this.classes,
      this.ingresses,
      this.services,
      this.slices,
      this.secrets,
    ];
    for (;;) {
      const synced = await Promise.all(all.map((i) => i.whenSynced(30_000)));
      if (synced.every(Boolean)) return;
      log(`waiting for the caches to sync: ${all.map((i) => i.lastError?.message).find(Boolean) ?? 'no answer yet'}`);
    }
  }

  stop(): Promise<void> {
    return this.factory.shutdown();
  }

  /** The names of the classes whose controller is this one. */
  ownClasses(): IngressClass[] {
    return this.classes
      .lister()
      .list()
      .filter((c) => c.spec?.controller === this.selection.controllerName);
  }

  /** The Ingresses this controller serves. */
  servedIngresses(): Ingress[] {
    const own = this.ownClasses();
    const names = new Set(own.map((c) => c.metadata?.name ?? ''));
    const withoutClass = this.selection.withoutClass === 'always' || (this.selection.withoutClass === 'default' && own.some(isDefaultIngressClass));
    return this.ingresses
      .lister()
      .list()
      .filter((ingress) => {
        const name = ingress.spec?.ingressClassName ?? ingress.metadata?.annotations?.['kubernetes.io/ingress.class'];
        return name === undefined ? withoutClass : names.has(name);
      });
  }

  secret(namespace: string, name: string): Secret | undefined {
    return this.secrets.lister().namespace(namespace).get(name);
  }

  /**
   * The ready endpoints of a Service port, as kube-proxy resolves them: the Service's port by number or
   * name, then the EndpointSlices' port of the same name and the endpoints not marked unready.
   */
  resolve(backend: ServiceBackend): Resolution {
    const service = this.services.lister().namespace(backend.namespace).get(backend.service);
    const id = `${backend.namespace}/${backend.service}`;
    if (service === undefined) return { endpoints: [], reason: `service ${id} not found` };
    const port = (service.spec?.ports ?? []).find((p) => (backend.port.name ? p.name === backend.port.name : p.port === backend.port.number));
    if (port === undefined) return { endpoints: [], reason: `service ${id} has no port ${backend.port.name ?? backend.port.number}` };
    const endpoints: Endpoint[] = [];
    const seen = new Set<string>();
    for (const slice of this.slices.indexer.byIndex(BY_SERVICE, id)) {
      if (slice.addressType !== 'IPv4' && slice.addressType !== 'IPv6') continue;
      const slicePort = (slice.ports ?? []).find((p) => (p.name ?? '') === (port.name ?? '') && (p.protocol ?? 'TCP') === 'TCP');
      if (slicePort?.port === undefined) continue;
      for (const endpoint of slice.endpoints ?? []) {
        if (endpoint.conditions?.ready === false) continue;
        const address = endpoint.addresses?.[0];
        const key = `${address}:${slicePort.port}`;
        if (address === undefined || seen.has(key)) continue;
        seen.add(key);
        endpoints.push({ address, port: slicePort.port });
      }
    }
    return endpoints.length > 0 ? { endpoints } : { endpoints: [], reason: `service ${id} has no ready endpoints` };
  }
}
