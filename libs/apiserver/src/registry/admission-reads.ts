import {
  limitRangeDefinition,
  priorityClassDefinition,
  resourceQuotaDefinition,
  runtimeClassDefinition,
  storageClassDefinition,
  ingressClassDefinition,
  type IngressClass,
  type ApiObject,
  type LimitRange,
  type PriorityClass,
  type ResourceQuota,
  type RuntimeClass,
  type StorageClass,
} from '@svc/api';
import { isStatusError, LabelQuery } from '@svc/machinery';
import {
  endpointsServiceResolver,
  MAX_POLICY_PARAMS,
  refreshingSource,
  type AdmissionConfigurations,
  type AdmissionDependencies,
  type ParamSource,
  type PriorityClassLookup,
  type ServiceResolver,
  type StorageClassLookup,
  type IngressClassLookup,
} from '../admission';
import type { ResourceRegistries } from './registries';
import type { ResourceRegistry } from './resource-registry';

/** Configurations of one kind read at most; more is a misconfiguration, not a reason to read without end. */
const MAX_CONFIGURATIONS = 1000;

/**
 * What admission reads (namespaces, service accounts, pods, its own configurations, policy params,
 * webhook services), read through the registries: from the watch cache, consistently with the store
 * (a read without a resourceVersion waits for the cache to reach the store's revision), so a namespace
 * created a moment ago is seen and the watch cache is the one read model. The registries are given
 * late (they are built with the admission chain these reads serve).
 */
export function admissionReads(registries: () => ResourceRegistries): Omit<AdmissionDependencies, 'flags' | 'mountServiceAccountTokens'> {
  const services = registryServiceResolver(registries);
  return {
    namespaces: (name) => current(registries().namespaces, '', name),
    serviceAccounts: (namespace, name) => current(registries().serviceAccounts, namespace, name),
    pods: (namespace, name) => current(registries().pods, namespace, name),
    namespacePods: async (namespace, limit) => {
      const pods = registries().pods;
      if (pods === undefined) return { pods: [], total: 0 };
      const page = await pods.list(namespace, { limit });
      return { pods: [...page.items], total: page.items.length + (page.remainingItemCount ?? 0) };
    },
    priorityClasses: priorityClassReads(registries),
    storageClasses: storageClassReads(registries),
    ingressClasses: ingressClassReads(registries),
    runtimeClasses: { get: (name) => current(registries().kind<RuntimeClass>(runtimeClassDefinition), '', name) },
    configurations: admissionConfigurations(registries, services),
    resourceQuotas: resourceQuotaReads(registries),
    limitRanges: async (namespace) => [
      ...((await registries().kind<LimitRange>(limitRangeDefinition)?.list(namespace, { limit: MAX_NAMESPACE_POLICIES }))?.items ?? []),
    ],
  };
}

/** Quotas or LimitRanges of one namespace read at most; more is a misconfiguration, not a reason to read without end. */
const MAX_NAMESPACE_POLICIES = 1000;

/**
 * The ResourceQuota plugin's reads and writes: a namespace's quotas as stored now, and a status write
 * conditional on the resourceVersion read (the compare-and-swap that keeps concurrent charges within
 * the quota), written as the server's own (it is not a user's request, and quota ignores subresources).
 */
function resourceQuotaReads(registries: () => ResourceRegistries): NonNullable<AdmissionDependencies['resourceQuotas']> {
  const quotas = () => registries().kind<ResourceQuota>(resourceQuotaDefinition);
  return {
    list: async (namespace) => [...((await quotas()?.list(namespace, { limit: MAX_NAMESPACE_POLICIES }))?.items ?? [])],
    updateStatus: async (quota) => {
      await quotas()?.updateStatus(quota);
    },
  };
}

/** Classes read at most when looking for the global default. */
const MAX_PRIORITY_CLASSES = 10_000;

/**
 * The Priority plugin's reads: a class a pod names as it is now; the list it finds the global default
 * in reused for a moment, as Kubernetes reads it from an informer, unless a write of a class asks for
 * it afresh (to refuse a second global default made a moment after the first).
 */
function priorityClassReads(registries: () => ResourceRegistries): PriorityClassLookup {
  const classes = () => registries().kind<PriorityClass>(priorityClassDefinition);
  const readAll = async () => [...((await classes()?.list('', { limit: MAX_PRIORITY_CLASSES }))?.items ?? [])];
  const cached = refreshingSource<PriorityClass>(readAll);
  return {
    get: (name) => current(classes(), '', name),
    list: (fresh) => (fresh === true ? readAll() : cached()),
  };
}

/** Classes read at most when looking for the default one. */
const MAX_STORAGE_CLASSES = 10_000;

/** The storage plugins' reads: a class a claim names as it is now; the list the default is found in reused for a moment. */
function storageClassReads(registries: () => ResourceRegistries): StorageClassLookup {
  const classes = () => registries().kind<StorageClass>(storageClassDefinition);
  const cached = refreshingSource<StorageClass>(async () => [...((await classes()?.list('', { limit: MAX_STORAGE_CLASSES }))?.items ?? [])]);
  return { get: (name) => current(classes(), '', name), list: () => cached() };
}

/** Classes read at most when looking for the default one. */
const MAX_INGRESS_CLASSES = 10_000;

/** DefaultIngressClass's read: the classes the default is found in, reused for a moment. */
function ingressClassReads(registries: () => ResourceRegistries): IngressClassLookup {
  const cached = refreshingSource<IngressClass>(async () => [
    ...((await registries().kind<IngressClass>(ingressClassDefinition)?.list('', { limit: MAX_INGRESS_CLASSES }))?.items ?? []),
  ]);
  return { list: () => cached() };
}

/** The webhook configurations and validating admission policies (and their bindings and params) admission acts on. */
function admissionConfigurations(registries: () => ResourceRegistries, services: ServiceResolver): AdmissionConfigurations {
  const all = <T extends ApiObject>(registry: () => ResourceRegistry<T> | undefined) =>
    refreshingSource<T>(async () => [...((await registry()?.list('', { limit: MAX_CONFIGURATIONS }))?.items ?? [])]);
  return {
    mutating: all(() => registries().mutatingWebhookConfigurations),
    validating: all(() => registries().validatingWebhookConfigurations),
    policies: all(() => registries().validatingAdmissionPolicies),
    bindings: all(() => registries().validatingAdmissionPolicyBindings),
    services,
    params: registryParams(registries),
  };
}

/** Where a webhook named by a service reference is reached (admission webhooks, CRD conversion webhooks). */
export function registryServiceResolver(registries: () => ResourceRegistries): ServiceResolver {
  return endpointsServiceResolver((resource, namespace, name) =>
    current(resource === 'services' ? registries().services : registries().endpoints, namespace, name),
  );
}

/** The params a policy binding names: one object by name, or up to MAX_POLICY_PARAMS its selector picks. */
function registryParams(registries: () => ResourceRegistries): ParamSource {
  return async (query) => {
    const definition = registries().scheme.byApiVersionKind(query.apiVersion, query.kind);
    if (definition === undefined) throw new Error(`paramKind ${query.apiVersion}, Kind=${query.kind} is not served`);
    const registry = registries().forDefinition(definition);
    const namespace = definition.namespaced ? query.namespace : '';
    if (query.name !== undefined && query.name !== '') {
      const found = await current(registry, namespace, query.name);
      return found === undefined ? [] : [found];
    }
    const selector = LabelQuery.fromLabelSelector(query.selector ?? {});
    const listed = await registry.list(namespace, { limit: 10 * MAX_POLICY_PARAMS });
    return listed.items.filter((o) => selector.matches(o.metadata?.labels ?? {})).slice(0, MAX_POLICY_PARAMS);
  };
}

/** The object as it is now, or undefined when there is none (or the kind is not served, or the name names nothing). */
async function current<T extends ApiObject>(registry: ResourceRegistry<T> | undefined, namespace: string, name: string): Promise<T | undefined> {
  if (registry === undefined) return undefined;
  try {
    return await registry.get(namespace, name);
  } catch (error) {
    if (isStatusError(error) && error.code === 404) return undefined;
    throw error;
  }
}
