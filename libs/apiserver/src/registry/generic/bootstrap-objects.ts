import { apiVersionOf, type Scheme } from '@svc/api';
import { isStatusError } from '@svc/machinery';
import { SERVER_FIELD_MANAGER } from '../core/namespace/bootstrap-namespaces';
import type { ResourceRegistries } from '../registries';

const ATTEMPTS = 30;
const RETRY_DELAY_MS = 1_000;

/**
 * Creates the objects built-in kinds declare every cluster has (their strategy's bootstrapObjects, such
 * as the system priority classes) that are missing, through their registries as any client's create
 * goes; one made meanwhile by another server is as good. A store not reachable yet is retried for a while.
 */
export async function ensureBootstrapObjects(scheme: Scheme, registries: ResourceRegistries): Promise<void> {
  const wanted = scheme
    .all()
    .filter((def) => def.source.type === 'builtin' && !def.namespaced)
    .flatMap((def) => (def.strategy.bootstrapObjects ?? []).map((object) => ({ def, object })));
  for (let attempt = 1; ; attempt++) {
    try {
      for (const { def, object } of wanted) {
        const registry = registries.forDefinition(def);
        const name = object.metadata?.name ?? '';
        try {
          await registry.get('', name);
          continue;
        } catch (error) {
          if (!isStatusError(error) || error.code !== 404) throw error;
        }
        try {
          const value = { ...structuredClone(object), apiVersion: apiVersionOf(def), kind: def.kind };
          await registry.create('', { value }, { fieldManager: SERVER_FIELD_MANAGER });
        } catch (error) {
          if (!isStatusError(error) || error.code !== 409) throw error;
        }
      }
      return;
    } catch (error) {
      if (attempt >= ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
    }
  }
}
