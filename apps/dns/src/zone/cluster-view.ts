import type { EndpointSlice, Service } from '@svc/api';

/** What the records are made from: the Services and EndpointSlices the informers hold. */
export interface ClusterView {
  service(namespace: string, name: string): Service | undefined;
  /** The EndpointSlices of a Service (labelled `kubernetes.io/service-name`). */
  slices(namespace: string, service: string): readonly EndpointSlice[];
  /** Whether any Service lives in the namespace (`<ns>.svc.<zone>` then exists, without records). */
  hasNamespace(namespace: string): boolean;
  /** Every Service, for the reverse index. */
  allServices(): readonly Service[];
  /** Bumped on every change, so derived indexes know when to rebuild. */
  readonly version: number;
}

/** A view over plain arrays, for tests and benchmarks. */
export class StaticClusterView implements ClusterView {
  version = 0;
  constructor(
    private services: readonly Service[],
    private endpointSlices: readonly EndpointSlice[],
  ) {}

  set(services: readonly Service[], endpointSlices: readonly EndpointSlice[]): void {
    this.services = services;
    this.endpointSlices = endpointSlices;
    this.version++;
  }

  service(namespace: string, name: string): Service | undefined {
    return this.services.find((s) => s.metadata?.namespace === namespace && s.metadata?.name === name);
  }

  slices(namespace: string, service: string): readonly EndpointSlice[] {
    return this.endpointSlices.filter((s) => s.metadata?.namespace === namespace && s.metadata?.labels?.[SERVICE_NAME_LABEL] === service);
  }

  hasNamespace(namespace: string): boolean {
    return this.services.some((s) => s.metadata?.namespace === namespace);
  }

  allServices(): readonly Service[] {
    return this.services;
  }
}

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
