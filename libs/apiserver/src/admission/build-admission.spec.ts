import { builtinScheme, type ApiObject } from '@svc/api';
import { isStatusError } from '@svc/machinery';
import type { AdmissionPluginName } from '@svc/options';
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

/** The default plugins this server implements, in Kubernetes' order. */
const DEFAULT_IMPLEMENTED: AdmissionPluginName[] = [
  'NamespaceLifecycle',
  'ServiceAccount',
  'TaintNodesByCondition',
  'PodSecurity',
  'Priority',
  'DefaultTolerationSeconds',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
];

describe('buildAdmissionChain', () => {
  it('runs the default plugins it implements, in Kubernetes order', async () => {
    const chain = buildAdmissionChain({}, { namespaces: lookup });
    expect(chain.names()).toEqual(DEFAULT_IMPLEMENTED);
    expect(await codeOf(chain.admit(create('live')))).toBeUndefined();
    expect(await codeOf(chain.admit(create('missing')))).toBe(404);
  });

  it('honours --disable-admission-plugins and --enable-admission-plugins', async () => {
    const off = buildAdmissionChain(
      {
        disableAdmissionPlugins: DEFAULT_IMPLEMENTED,
      },
      { namespaces: lookup },
    );
    expect(off.names()).toEqual([]);
    expect(await codeOf(off.admit(create('missing')))).toBeUndefined();
    const deny = buildAdmissionChain(
      {
        enableAdmissionPlugins: ['AlwaysDeny', 'NamespaceExists', 'AlwaysPullImages'],
        disableAdmissionPlugins: ['ServiceAccount', 'Priority', 'TaintNodesByCondition', 'DefaultTolerationSeconds'],
      },
      { namespaces: lookup },
    );
    expect(deny.names()).toEqual([
      'NamespaceLifecycle',
      'NamespaceExists',
      'PodSecurity',
      'DefaultStorageClass',
      'StorageObjectInUseProtection',
      'PersistentVolumeClaimResize',
      'RuntimeClass',
      'CertificateApproval',
      'CertificateSigning',
      'CertificateSubjectRestriction',
      'DefaultIngressClass',
      'AlwaysDeny',
    ]);
    expect(await codeOf(deny.admit(create('live')))).toBe(403);
  });
});

describe('Pod admission', () => {
  const pods = scheme.byResource({ group: '', version: 'v1', resource: 'pods' })!;
  const accounts = new Set(['ns/builder']);
  const chain = buildAdmissionChain(
    { disableAdmissionPlugins: ['NamespaceLifecycle'] },
    { namespaces: lookup, serviceAccounts: async (ns, name) => (accounts.has(`${ns}/${name}`) ? { metadata: { name } } : undefined) },
  );
  const admit = async (spec: Record<string, unknown>) => {
    const object: ApiObject = { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }], ...spec } };
    await chain.admit({ operation: 'CREATE', definition: pods, namespace: 'ns', name: 'p', subresource: '', object, dryRun: false });
    return object.spec as Record<string, unknown>;
  };

  it('runs a pod as the default service account, with the priority of its class (ServiceAccount and Priority plugins)', async () => {
    expect(await admit({})).toMatchObject({ serviceAccountName: 'default', serviceAccount: 'default', priority: 0, preemptionPolicy: 'PreemptLowerPriority' });
    expect(await admit({ serviceAccountName: 'builder', priorityClassName: 'system-node-critical' })).toMatchObject({
      serviceAccountName: 'builder',
      serviceAccount: 'builder',
      priority: 2000001000,
    });
  });

  it('refuses an account that does not exist, an unknown class and a priority given by hand, as Kubernetes does', async () => {
    const refusal = async (spec: Record<string, unknown>) => {
      try {
        await admit(spec);
        return undefined;
      } catch (error) {
        return isStatusError(error) ? `${error.code} ${error.status.message}` : String(error);
      }
    };
    expect(await refusal({ serviceAccountName: 'ghost' })).toBe(
      '403 pods "p" is forbidden: error looking up service account ns/ghost: serviceaccount "ghost" not found',
    );
    expect(await refusal({ priorityClassName: 'gold' })).toBe('403 pods "p" is forbidden: no PriorityClass with name gold was found');
    expect(await refusal({ priority: 7 })).toMatch(/^403 .*the integer value of priority \(7\) must not be provided in pod spec/);
  });
});
