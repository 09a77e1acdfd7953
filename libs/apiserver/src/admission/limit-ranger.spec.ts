import { builtinScheme, type ApiObject, type LimitRange } from '@svc/api';
import { isStatusError } from '@svc/machinery';
import type { AdmissionAttributes } from './admission';
import { limitRangerAdmission } from './limit-ranger';

const scheme = builtinScheme();
const pods = scheme.byResource({ group: '', version: 'v1', resource: 'pods' })!;

const range = (...limits: NonNullable<LimitRange['spec']>['limits']): LimitRange => ({ metadata: { name: 'lr', namespace: 'ns' }, spec: { limits } });
const plugin = (...ranges: LimitRange[]) => limitRangerAdmission(() => Promise.resolve(ranges));

function attributes(containers: Record<string, unknown>[], initContainers: Record<string, unknown>[] = []): AdmissionAttributes {
  const object: ApiObject = { metadata: { name: 'p' }, spec: { containers, ...(initContainers.length ? { initContainers } : {}) } };
  return { operation: 'CREATE', definition: pods, namespace: 'ns', name: 'p', subresource: '', object, dryRun: false };
}

async function refusal(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    if (isStatusError(error)) return `${error.code} ${error.status.message}`;
    throw error;
  }
}

describe('the LimitRanger admission plugin', () => {
  it('fills in the default requests and limits a container leaves out, and says so', async () => {
    const lr = range({ type: 'Container', default: { cpu: '500m', memory: '128Mi' }, defaultRequest: { cpu: '100m', memory: '128Mi' } });
    const a = attributes([{ name: 'app', resources: { limits: { memory: '256Mi' }, requests: { memory: '256Mi' } } }], [{ name: 'init' }]);
    await plugin(lr).admit!(a);
    const spec = a.object!.spec as { containers: { resources: unknown }[]; initContainers: { resources: unknown }[] };
    expect(spec.containers[0].resources).toEqual({ limits: { memory: '256Mi', cpu: '500m' }, requests: { memory: '256Mi', cpu: '100m' } });
    expect(spec.initContainers[0].resources).toEqual({ limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '100m', memory: '128Mi' } });
    expect(a.object!.metadata?.annotations?.['kubernetes.io/limit-ranger']).toBe(
      'LimitRanger plugin set: cpu request for container app; cpu limit for container app; cpu, memory request for init container init; cpu, memory limit for init container init',
    );
  });

  it('refuses containers and pods outside min, max and the limit-to-request ratio, with Kubernetes’ messages', async () => {
    const lr = range(
      { type: 'Container', min: { cpu: '100m' }, max: { memory: '1Gi' }, maxLimitRequestRatio: { cpu: '2' } },
      { type: 'Pod', max: { cpu: '1' } },
    );
    expect(await refusal(Promise.resolve(plugin(lr).validate!(attributes([{ name: 'a', resources: { requests: { cpu: '50m' } } }]))))).toBe(
      '403 pods "p" is forbidden: [minimum cpu usage per Container is 100m, but request is 50m, maximum memory usage per Container is 1Gi.  No limit is specified, cpu max limit to request ratio per Container is 2, but no limit is specified or limit is 0, maximum cpu usage per Pod is 1.  No limit is specified]',
    );
    const ok = { name: 'a', resources: { requests: { cpu: '200m' }, limits: { cpu: '800m', memory: '1Gi' } } };
    expect(await refusal(Promise.resolve(plugin(lr).validate!(attributes([ok]))))).toBe(
      '403 pods "p" is forbidden: cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000',
    );
    const fits = { name: 'a', resources: { requests: { cpu: '400m' }, limits: { cpu: '800m', memory: '1Gi' } } };
    expect(await refusal(Promise.resolve(plugin(lr).validate!(attributes([fits]))))).toBeUndefined();
  });

  it('bounds a claim’s storage request', async () => {
    const claims = scheme.all().find((d) => d.resource === 'persistentvolumeclaims');
    const lr = range({ type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '10Gi' } });
    const claim = (storage: string): AdmissionAttributes => ({
      operation: 'CREATE',
      definition: claims ?? { ...pods, resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim' },
      namespace: 'ns',
      name: 'c',
      subresource: '',
      object: { metadata: { name: 'c' }, spec: { resources: { requests: { storage } } } },
      dryRun: false,
    });
    expect(await refusal(Promise.resolve(plugin(lr).validate!(claim('20Gi'))))).toBe(
      '403 persistentvolumeclaims "c" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi',
    );
    expect(await refusal(Promise.resolve(plugin(lr).validate!(claim('500Mi'))))).toBe(
      '403 persistentvolumeclaims "c" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi',
    );
  });
});
