import { builtinScheme, quotaEvaluatorFor, type ApiObject, type KindDefinition, type ResourceQuota } from '@svc/api';
import { isStatusError, newConflict } from '@svc/machinery';
import type { AdmissionAttributes } from './admission';
import { checkQuotaRequest, resourceQuotaAdmission, type ResourceQuotaAccess } from './resource-quota';

const scheme = builtinScheme();
const def = (group: string, resource: string): KindDefinition => scheme.byResource({ group, version: 'v1', resource })!;
const pods = def('', 'pods');
const services = def('', 'services');

const quota = (name: string, hard: Record<string, string>, used: Record<string, string>, extra: Partial<ResourceQuota['spec']> = {}): ResourceQuota => ({
  metadata: { name, namespace: 'ns', resourceVersion: '1' },
  spec: { hard, ...extra },
  status: { hard, used },
});

const attributes = (definition: KindDefinition, object: ApiObject, operation: 'CREATE' | 'UPDATE' = 'CREATE', oldObject?: ApiObject): AdmissionAttributes => ({
  operation,
  definition,
  namespace: 'ns',
  name: object.metadata?.name ?? '',
  subresource: '',
  object,
  oldObject,
  dryRun: false,
});

const pod = (resources?: Record<string, unknown>, spec: Record<string, unknown> = {}): ApiObject => ({
  metadata: { name: 'p' },
  spec: { containers: [{ name: 'app', image: 'i', ...(resources ? { resources } : {}) }], ...spec },
});

function refusal(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (isStatusError(error)) return `${error.code} ${error.status.message}`;
    throw error;
  }
}

const now = new Date();
const check = (quotas: ResourceQuota[], a: AdmissionAttributes) => {
  const stored = a.definition.aliasOf ?? a.definition;
  return checkQuotaRequest(quotas, a, quotaEvaluatorFor(stored.group, stored.resource)!, now);
};

describe('ResourceQuota admission: CheckRequest', () => {
  it('charges a matching quota and refuses what goes past it with Kubernetes’ message', () => {
    const [charged] = check(
      [quota('q', { pods: '2', 'requests.cpu': '1' }, { pods: '1', 'requests.cpu': '500m' })],
      attributes(pods, pod({ requests: { cpu: '250m' } })),
    );
    expect(charged.status?.used).toEqual({ pods: '2', 'requests.cpu': '750m' });
    expect(refusal(() => check([quota('q', { pods: '2' }, { pods: '2' })], attributes(pods, pod())))).toBe(
      '403 pods "p" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2',
    );
  });

  it('refuses while the controller has not counted a quota, and a pod that does not state what it counts', () => {
    expect(refusal(() => check([quota('q', { pods: '2', 'count/pods': '3' }, { pods: '0' })], attributes(pods, pod())))).toBe(
      '403 pods "p" is forbidden: status unknown for quota: q, resources: count/pods,pods',
    );
    expect(refusal(() => check([quota('q', { 'limits.memory': '1Gi' }, { 'limits.memory': '0' })], attributes(pods, pod())))).toBe(
      '403 pods "p" is forbidden: failed quota: q: must specify limits.memory for: app',
    );
  });

  it('passes over quotas whose scopes the object is not in, and charges an update only what it adds', () => {
    const scoped = quota('be', { pods: '1' }, { pods: '1' }, { scopes: ['BestEffort'] });
    expect(check([scoped], attributes(pods, pod({ requests: { cpu: '1' } })))[0]).toBe(scoped);
    const clusterIp = { metadata: { name: 's', resourceVersion: '5' }, spec: { type: 'ClusterIP', ports: [{ port: 80 }] } };
    const nodePort = { metadata: { name: 's' }, spec: { type: 'NodePort', ports: [{ port: 80 }, { port: 81 }] } };
    const q = quota('svc', { services: '1', 'services.nodeports': '1' }, { services: '1', 'services.nodeports': '0' });
    expect(refusal(() => check([q], attributes(services, nodePort, 'UPDATE', clusterIp)))).toBe(
      '403 services "s" is forbidden: exceeded quota: svc, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1',
    );
  });
});

describe('ResourceQuota admission plugin', () => {
  /** A namespace's quotas held as a store holds them: a write must name the resourceVersion it read. */
  function store(initial: ResourceQuota, conflicts = 0): ResourceQuotaAccess & { current: () => ResourceQuota; writes: number } {
    let current = initial;
    let left = conflicts;
    const access = {
      writes: 0,
      current: () => current,
      list: () => Promise.resolve([current]),
      updateStatus(q: ResourceQuota) {
        if (left > 0 || q.metadata?.resourceVersion !== current.metadata?.resourceVersion) {
          left--;
          // Another writer got there first: the stored quota moves on.
          current = { ...current, metadata: { ...current.metadata, resourceVersion: String(Number(current.metadata?.resourceVersion) + 1) } };
          return Promise.reject(newConflict('resourcequotas', 'q', 'the object has been modified'));
        }
        access.writes++;
        current = { ...q, metadata: { ...q.metadata, resourceVersion: String(Number(q.metadata?.resourceVersion) + 1) } };
        return Promise.resolve();
      },
    };
    return access;
  }

  it('admits exactly what the quota holds of concurrent creates, trying again after a conflict', async () => {
    const access = store(quota('q', { pods: '3' }, { pods: '0' }), 2);
    const plugin = resourceQuotaAdmission(access);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, async (_, i) => plugin.validate!(attributes(pods, { ...pod(), metadata: { name: `p${i}` } }))),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(3);
    expect(access.current().status?.used).toEqual({ pods: '3' });
  });

  it('charges nothing on a dry run, for subresources, or outside a namespace', async () => {
    const access = store(quota('q', { pods: '3' }, { pods: '0' }));
    const plugin = resourceQuotaAdmission(access);
    await plugin.validate!({ ...attributes(pods, pod()), dryRun: true });
    await plugin.validate!({ ...attributes(pods, pod()), subresource: 'status', operation: 'UPDATE' });
    await plugin.validate!({ ...attributes(def('', 'namespaces'), { metadata: { name: 'ns' } }), namespace: '' });
    expect(access.writes).toBe(0);
  });
});
