import type { KindDefinition, Scheme } from '@svc/api';
import type { CacherPool } from './cacher-pool';
import { ResourceRegistry } from './registry';
import type { RegistryContext } from './registry-types';

/**
 * The registries of every kind, one per KindDefinition, made on first use. Definitions are looked up
 * in the shared Scheme on every request, so a CRD version registered or replaced at run time gets a
 * fresh registry (its compiled schema goes with the definition object).
 */
export class ResourceRegistries {
  private readonly registries = new WeakMap<KindDefinition, ResourceRegistry>();

  constructor(readonly context: RegistryContext) {}

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
      registry = new ResourceRegistry(definition, this.context);
      this.registries.set(definition, registry);
    }
    return registry;
  }

  /** The registry of a served resource as the scheme has it now; undefined when it is not served. */
  forResource(group: string, version: string, resource: string): ResourceRegistry | undefined {
    const definition = this.context.scheme.byResource({ group, version, resource });
    return definition?.served ? this.forDefinition(definition) : undefined;
  }

  /** Stops the watch cache of a resource that is no longer served (a CRD was deleted): its watches end. */
  forget(group: string, resource: string): Promise<void> {
    return this.context.cachers.forget(group, resource);
  }
}
