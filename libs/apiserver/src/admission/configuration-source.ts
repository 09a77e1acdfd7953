import {
  mutatingWebhookConfigurationDefinition,
  validatingAdmissionPolicyBindingDefinition,
  validatingAdmissionPolicyDefinition,
  validatingWebhookConfigurationDefinition,
  type ApiObject,
  type KindDefinition,
  type Scheme,
  type MutatingWebhookConfiguration,
  type ValidatingAdmissionPolicy,
  type ValidatingAdmissionPolicyBinding,
  type ValidatingWebhookConfiguration,
} from '@svc/api';
import { prefixKey, type Storage } from '@svc/storage';
import { storedParams, type ParamSource } from './policy-params';
import { endpointsServiceResolver, type ServiceResolver } from './service-resolver';

/** The stored objects of one cluster-scoped kind that configures admission (webhooks, policies). */
export type ConfigurationSource<T> = () => Promise<readonly T[]>;

/** How long a read of the configurations is reused: writes see new configurations within this time. */
export const CONFIGURATION_REFRESH_MS = 500;
/** Configurations of one kind read at most; more is a misconfiguration, not a reason to read without end. */
const MAX_CONFIGURATIONS = 1000;

/**
 * Reads the objects under `group/resource` from storage, reusing one read for CONFIGURATION_REFRESH_MS,
 * so that admission does not list its configuration on every write (Kubernetes reads it from an informer,
 * with the same lag).
 */
export function storedConfigurations<T extends ApiObject>(storage: Storage, storePrefix: string, group: string, resource: string): ConfigurationSource<T> {
  let cached: { at: number; items: Promise<readonly T[]> } | undefined;
  return () => {
    const now = Date.now();
    if (cached === undefined || now - cached.at > CONFIGURATION_REFRESH_MS) {
      const items = storage
        .list<T & { metadata: { resourceVersion?: string } }>(prefixKey({ prefix: storePrefix, group, resource }), { limit: MAX_CONFIGURATIONS })
        .then((r) => [...r.items].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '')));
      cached = { at: now, items };
      items.catch(() => {
        cached = undefined;
      });
    }
    return cached.items;
  };
}

/** The admission configurations the webhook and policy plugins read, from the store. */
export interface AdmissionConfigurations {
  mutating: ConfigurationSource<MutatingWebhookConfiguration>;
  validating: ConfigurationSource<ValidatingWebhookConfiguration>;
  policies: ConfigurationSource<ValidatingAdmissionPolicy>;
  bindings: ConfigurationSource<ValidatingAdmissionPolicyBinding>;
  services: ServiceResolver;
  params?: ParamSource;
}

export function storedAdmissionConfigurations(storage: Storage, storePrefix: string, scheme?: Scheme): AdmissionConfigurations {
  const of = <T extends ApiObject>(definition: KindDefinition) => storedConfigurations<T>(storage, storePrefix, definition.group, definition.resource);
  return {
    mutating: of(mutatingWebhookConfigurationDefinition),
    validating: of(validatingWebhookConfigurationDefinition),
    policies: of(validatingAdmissionPolicyDefinition),
    bindings: of(validatingAdmissionPolicyBindingDefinition),
    services: endpointsServiceResolver(storage, storePrefix),
    params: scheme && storedParams(storage, storePrefix, scheme),
  };
}
