import { isStatusError } from '@svc/machinery';
import type { ResourceRegistry } from '../../resource-registry';

/** The namespaces every cluster has from its first start. */
export const BOOTSTRAP_NAMESPACES: readonly string[] = ['default', 'svc-system', 'svc-public', 'svc-node-lease'];

/** The field manager of what the server creates itself. */
export const SERVER_FIELD_MANAGER = 'svc-apiserver';

const ATTEMPTS = 30;
const RETRY_DELAY_MS = 1_000;

/**
 * Creates the bootstrap namespaces that are missing, through the namespace registry (so they get uid,
 * timestamps and defaults like any other). A store that is not reachable yet is retried for a while.
 */
export async function ensureBootstrapNamespaces(namespaces: ResourceRegistry, names: readonly string[] = BOOTSTRAP_NAMESPACES): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      for (const name of names) await ensureNamespace(namespaces, name);
      return;
    } catch (error) {
      if (attempt >= ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
    }
  }
}

/** Creates one namespace unless it exists (one made meanwhile by another writer is as good). */
export async function ensureNamespace(namespaces: ResourceRegistry, name: string): Promise<void> {
  try {
    await namespaces.get('', name);
    return;
  } catch (error) {
    if (!isStatusError(error) || error.code !== 404) throw error;
  }
  try {
    await namespaces.create('', { value: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } }, { fieldManager: SERVER_FIELD_MANAGER });
  } catch (error) {
    if (!isStatusError(error) || error.code !== 409) throw error;
  }
}
