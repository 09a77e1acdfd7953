import { builtinScheme, type ApiObject } from '@svc/api';
import { isStatusError } from '@svc/machinery';
import type { AdmissionAttributes } from './admission';
import { buildAdmissionChain } from './build-admission';

const scheme = builtinScheme();
const configMaps = scheme.byResource({ group: '', version: 'v1', resource: 'configmaps' })!;
const namespaces = new Map<string, ApiObject>([['live', { metadata: { name: 'live' }, status: { phase: 'Active' } }]]);
const lookup = async (name: string) => namespaces.get(name);

function create(namespace: string): AdmissionAttributes {
  return { operation: 'CREATE', definition: configMaps, namespace, name: 'x', subresource: '', object: { metadata: { name: 'x' } }, dryRun: false };
}

async function codeOf(promise: Promise<unknown>): Promise<number | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    if (isStatusError(error)) return error.code;
    throw error;
  }
}

describe('buildAdmissionChain', () => {
  it('runs NamespaceLifecycle by default and only the plugins it implements', async () => {
    const chain = buildAdmissionChain({}, { namespaces: lookup });
    expect(chain.names()).toEqual(['NamespaceLifecycle']);
    expect(await codeOf(chain.admit(create('live')))).toBeUndefined();
    expect(await codeOf(chain.admit(create('missing')))).toBe(404);
  });

  it('honours --disable-admission-plugins and --enable-admission-plugins', async () => {
    const off = buildAdmissionChain({ disableAdmissionPlugins: ['NamespaceLifecycle'] }, { namespaces: lookup });
    expect(off.names()).toEqual([]);
    expect(await codeOf(off.admit(create('missing')))).toBeUndefined();
    const deny = buildAdmissionChain({ enableAdmissionPlugins: ['AlwaysDeny', 'NamespaceExists', 'AlwaysPullImages'] }, { namespaces: lookup });
    expect(deny.names()).toEqual(['NamespaceLifecycle', 'NamespaceExists', 'AlwaysDeny']);
    expect(await codeOf(deny.admit(create('live')))).toBe(403);
  });
});
