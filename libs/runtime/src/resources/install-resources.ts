import type { CustomResourceDefinition } from '@svc/api';
import { BUILTIN_RESOURCES, type Client } from '@svc/client';
import type { ConversionSource } from '../webhooks/webhook-server';
import type { ResourceObject } from './define-resource';

/** Anything that yields a CustomResourceDefinition: a `defineResource` result, or a wrapper of a CRD. */
export interface CustomResourceSource {
  crd(): CustomResourceDefinition;
  /** Whether its versions convert by functions, which the manager serves as a conversion webhook. */
  readonly convertsByFunction?: boolean;
  convert?(object: ResourceObject, apiVersion: string): ResourceObject;
}

/** The sources among `sources` whose conversion the manager serves as a webhook. */
export function convertingSources(sources: readonly CustomResourceSource[]): ConversionSource[] {
  return sources.flatMap((source) => {
    if (source.convertsByFunction !== true || source.convert === undefined) return [];
    const convert = source.convert.bind(source);
    return [{ name: source.crd().metadata!.name!, convert }];
  });
}

type Conversion = NonNullable<CustomResourceDefinition['spec']['conversion']>;

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
  conversionOf?: (crdName: string) => Conversion | undefined,
): Promise<CustomResourceDefinition[]> {
  const crds = client.resource(BUILTIN_RESOURCES.customResourceDefinitions);
  const { group, version } = BUILTIN_RESOURCES.customResourceDefinitions.info;
  // Written in the group the client addresses, whichever of its names the YAML carries.
  const apiVersion = `${group}/${version}`;
  const applied = await Promise.all(
    sources.map((source) => {
      const crd = source.crd();
      const conversion = conversionOf?.(crd.metadata!.name!);
      const spec = conversion ? { ...crd.spec, conversion } : crd.spec;
      return crds.apply({ ...crd, apiVersion, spec }, { fieldManager: RESOURCE_INSTALLER_FIELD_MANAGER, force: true });
    }),
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
