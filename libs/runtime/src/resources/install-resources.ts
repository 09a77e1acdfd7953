import type { CustomResourceDefinition } from '@svc/api';
import { BUILTIN_RESOURCES, type Client } from '@svc/client';

/** Anything that yields a CustomResourceDefinition: a `defineResource` result, or a wrapper of a CRD. */
export interface CustomResourceSource {
  crd(): CustomResourceDefinition;
}

/** The field manager of the definitions a manager installs. */
export const RESOURCE_INSTALLER_FIELD_MANAGER = 'svc-runtime-installer';

/**
 * Applies each definition (server-side apply, forced: the code is its source of truth, as
 * `kubectl apply --server-side --force-conflicts`) and waits until the API server serves all of them
 * (Established), so informers started next find their resources.
 */
export async function installCustomResources(
  client: Client,
  sources: readonly CustomResourceSource[],
  timeoutMs = 30_000,
): Promise<CustomResourceDefinition[]> {
  const crds = client.resource(BUILTIN_RESOURCES.customResourceDefinitions);
  const { group, version } = BUILTIN_RESOURCES.customResourceDefinitions.info;
  // Written in the group the client addresses, whichever of its names the YAML carries.
  const apiVersion = `${group}/${version}`;
  const applied = await Promise.all(
    sources.map((source) => crds.apply({ ...source.crd(), apiVersion }, { fieldManager: RESOURCE_INSTALLER_FIELD_MANAGER, force: true })),
  );
  const deadline = Date.now() + timeoutMs;
  const pending = new Set(applied.map((crd) => crd.metadata!.name!));
  const established: CustomResourceDefinition[] = [];
  for (;;) {
    for (const name of [...pending]) {
      const current = await crds.get(name);
      if (current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) {
        pending.delete(name);
        established.push(current);
      }
    }
    if (pending.size === 0) return established;
    if (Date.now() > deadline) throw new Error(`CustomResourceDefinitions not Established within ${timeoutMs} ms: ${[...pending].join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
