import {
  clusterRoleBindingDefinition,
  clusterRoleDefinition,
  configMapDefinition,
  endpointsDefinition,
  endpointSliceDefinition,
  eventDefinition,
  leaseDefinition,
  mutatingWebhookConfigurationDefinition,
  namespaceDefinition,
  nodeDefinition,
  podDefinition,
  podDisruptionBudgetDefinition,
  roleBindingDefinition,
  roleDefinition,
  secretDefinition,
  serviceAccountDefinition,
  serviceDefinition,
  validatingAdmissionPolicyBindingDefinition,
  validatingAdmissionPolicyDefinition,
  validatingWebhookConfigurationDefinition,
  type ApiObject,
  type ConfigMap,
  type Endpoints,
  type Event,
  type KindDefinition,
  type Lease,
  type MutatingWebhookConfiguration,
  type Namespace,
  type Node,
  type Pod,
  type PodDisruptionBudget,
  type Scheme,
  type Secret,
  type Service,
  type ServiceAccount,
  type ValidatingAdmissionPolicy,
  type ValidatingAdmissionPolicyBinding,
  type ValidatingWebhookConfiguration,
} from '@svc/api';
import type { CacherPool } from '../watchcache/cacher-pool';
import type { RegistryContext } from './registry-context';
import { ResourceRegistry } from './resource-registry';
import type { SubresourceRestTable } from './rest';

/**
 * The registries of every kind, one per KindDefinition, made on first use. Definitions are looked up
 * in the shared Scheme on every request, so a CRD version registered or replaced at run time gets a
 * fresh registry (its compiled schema goes with the definition object).
 *
 * The built-in kinds the server's own parts read and write (admission, a kind's REST, bootstrap, the
 * authorizers) are typed members, resolved through the scheme as it serves them now: undefined when
 * `--runtime-config` turned the kind off.
 */
export class ResourceRegistries {
  private readonly registries = new WeakMap<KindDefinition, ResourceRegistry>();

  constructor(
    readonly context: RegistryContext,
    private readonly rest: SubresourceRestTable = () => undefined,
  ) {}

  get scheme(): Scheme {
    return this.context.scheme;
  }

  get cachers(): CacherPool {
    return this.context.cachers;
  }

  /** The registry serving `definition` (built-in or custom). */
  forDefinition(definition: KindDefinition): ResourceRegistry {
    let registry = this.registries.get(definition);
    if (registry === undefined) {
      registry = new ResourceRegistry(definition, this.context, this, this.rest);
      this.registries.set(definition, registry);
    }
    return registry;
  }

  /** The registry of a served resource as the scheme has it now; undefined when it is not served. */
  forResource(group: string, version: string, resource: string): ResourceRegistry | undefined {
    const definition = this.context.scheme.byResource({ group, version, resource });
    return definition?.served ? this.forDefinition(definition) : undefined;
  }

  /** The registry of a built-in kind, typed, where the scheme serves its group version. */
  kind<T extends ApiObject>(definition: KindDefinition): ResourceRegistry<T> | undefined {
    return this.forResource(definition.group, definition.version, definition.resource) as ResourceRegistry<T> | undefined;
  }

  /** Stops the watch cache of a resource that is no longer served (a CRD was deleted): its watches end. */
  forget(group: string, resource: string): Promise<void> {
    return this.context.cachers.forget(group, resource);
  }

  // ---- the built-in kinds, typed ----

  get namespaces() {
    return this.kind<Namespace>(namespaceDefinition);
  }
  get pods() {
    return this.kind<Pod>(podDefinition);
  }
  get nodes() {
    return this.kind<Node>(nodeDefinition);
  }
  get serviceAccounts() {
    return this.kind<ServiceAccount>(serviceAccountDefinition);
  }
  get secrets() {
    return this.kind<Secret>(secretDefinition);
  }
  get configMaps() {
    return this.kind<ConfigMap>(configMapDefinition);
  }
  get events() {
    return this.kind<Event>(eventDefinition);
  }
  get leases() {
    return this.kind<Lease>(leaseDefinition);
  }
  get services() {
    return this.kind<Service>(serviceDefinition);
  }
  get endpoints() {
    return this.kind<Endpoints>(endpointsDefinition);
  }
  get endpointSlices() {
    return this.kind(endpointSliceDefinition);
  }
  get podDisruptionBudgets() {
    return this.kind<PodDisruptionBudget>(podDisruptionBudgetDefinition);
  }
  get clusterRoles() {
    return this.kind(clusterRoleDefinition);
  }
  get clusterRoleBindings() {
    return this.kind(clusterRoleBindingDefinition);
  }
  get roles() {
    return this.kind(roleDefinition);
  }
  get roleBindings() {
    return this.kind(roleBindingDefinition);
  }
  get mutatingWebhookConfigurations() {
    return this.kind<MutatingWebhookConfiguration>(mutatingWebhookConfigurationDefinition);
  }
  get validatingWebhookConfigurations() {
    return this.kind<ValidatingWebhookConfiguration>(validatingWebhookConfigurationDefinition);
  }
  get validatingAdmissionPolicies() {
    return this.kind<ValidatingAdmissionPolicy>(validatingAdmissionPolicyDefinition);
  }
  get validatingAdmissionPolicyBindings() {
    return this.kind<ValidatingAdmissionPolicyBinding>(validatingAdmissionPolicyBindingDefinition);
  }
}
