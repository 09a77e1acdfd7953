import type { CustomResourceDefinition } from '@svc/api';
import { BUILTIN_RESOURCES, type Client } from '@svc/client';
import { isAlreadyExists } from '@svc/machinery';

/**
 * Creates `crd` unless a definition of that name exists, then waits until the server reports it
 * Established (its resource is served). A definition already there is left as it is.
 */
export async function installCrd(client: Client, crd: CustomResourceDefinition, timeoutMs = 30_000): Promise<CustomResourceDefinition> {
  const crds = client.resource(BUILTIN_RESOURCES.customResourceDefinitions);
  const name = crd.metadata?.name;
  if (!name) throw new Error('the CustomResourceDefinition has no metadata.name');
  await crds.create(crd).catch((error: unknown) => {
    if (!isAlreadyExists(error)) throw error;
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const current = await crds.get(name);
    if (current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return current;
    if (Date.now() > deadline) throw new Error(`CustomResourceDefinition ${name} was not Established within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
