import type {
  ApiObject,
  MutatingWebhookConfiguration,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
  ValidatingWebhookConfiguration,
} from '@svc/api';
import type { ParamSource } from './policy-params';
import type { ServiceResolver } from './service-resolver';

/** The objects of one cluster-scoped kind that configures admission (webhooks, policies), in name order. */
export type ConfigurationSource<T> = () => Promise<readonly T[]>;

/** How long a read of the configurations is reused: writes see new configurations within this time. */
export const CONFIGURATION_REFRESH_MS = 500;

/**
 * A source that reads the configurations at most once per CONFIGURATION_REFRESH_MS and sorts them by
 * name, so that admission does not list its configuration on every write (Kubernetes reads it from an
 * informer, with the same lag). A failed read is not kept.
 */
export function refreshingSource<T extends ApiObject>(read: () => Promise<readonly T[]>): ConfigurationSource<T> {
  let cached: { at: number; items: Promise<readonly T[]> } | undefined;
  return () => {
    const now = Date.now();
    if (cached === undefined || now - cached.at > CONFIGURATION_REFRESH_MS) {
      const items = read().then((found) => [...found].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '')));
      cached = { at: now, items };
      items.catch(() => {
        cached = undefined;
      });
    }
    return cached.items;
  };
}

/** The admission configurations the webhook and policy plugins read. */
export interface AdmissionConfigurations {
  mutating: ConfigurationSource<MutatingWebhookConfiguration>;
  validating: ConfigurationSource<ValidatingWebhookConfiguration>;
  policies: ConfigurationSource<ValidatingAdmissionPolicy>;
  bindings: ConfigurationSource<ValidatingAdmissionPolicyBinding>;
  services: ServiceResolver;
  params?: ParamSource;
}
