import type { ApiObject, ResourceQuota } from '@svc/api';
import { calculateQuotaUsage, evaluatorsFor } from './quota-usage';

const now = new Date('2026-01-01T00:00:00Z');

const objects: Record<string, ApiObject[]> = {
  '/pods': [
    { metadata: { name: 'a' }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '250m' }, limits: { cpu: '500m' } } }] } },
    { metadata: { name: 'b' }, spec: { containers: [{ name: 'c' }] }, status: { phase: 'Running' } },
    { metadata: { name: 'done' }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '4' } } }] }, status: { phase: 'Succeeded' } },
  ],
  '/services': [{ metadata: { name: 's' }, spec: { type: 'NodePort', ports: [{ port: 80 }] } }],
  'apps/deployments': [{ metadata: { name: 'd1' } }, { metadata: { name: 'd2' } }],
  '/configmaps': [{ metadata: { name: 'm' } }],
};
const source = (group: string, resource: string) => Promise.resolve(objects[`${group}/${resource}`]);

const quota = (hard: Record<string, string>, spec: Partial<NonNullable<ResourceQuota['spec']>> = {}): ResourceQuota => ({
  metadata: { name: 'q', namespace: 'ns' },
  spec: { hard, ...spec },
});

describe('quota usage as the controller recalculates it', () => {
  it('sums what the namespace uses of each limited resource, finished pods using no compute', async () => {
    const hard = {
      pods: '10',
      'count/pods': '10',
      'requests.cpu': '4',
      'limits.cpu': '4',
      'services.nodeports': '3',
      'count/deployments.apps': '5',
      configmaps: '9',
    };
    expect(await calculateQuotaUsage(quota(hard), source, now)).toEqual({
      pods: '2',
      'count/pods': '3',
      'requests.cpu': '250m',
      'limits.cpu': '500m',
      'services.nodeports': '1',
      'count/deployments.apps': '2',
      configmaps: '1',
    });
  });

  it('counts only the objects in the quota’s scopes, and zero for a resource not served', async () => {
    expect(await calculateQuotaUsage(quota({ pods: '5' }, { scopes: ['BestEffort'] }), source, now)).toEqual({ pods: '1' });
    expect(await calculateQuotaUsage(quota({ 'count/widgets.example.com': '5', 'requests.storage': '1Gi' }), source, now)).toEqual({
      'count/widgets.example.com': '0',
      'requests.storage': '0',
    });
  });

  it('picks one evaluator per counted resource', () => {
    expect(evaluatorsFor(['pods', 'requests.cpu', 'count/deployments.apps', 'secrets', 'count/secrets']).map((e) => `${e.group}/${e.resource}`)).toEqual([
      '/pods',
      'apps/deployments',
      '/secrets',
    ]);
  });
});
