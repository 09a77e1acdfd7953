import type { ApiObject } from '../scheme/kind-definition';
import { podQuotaEvaluator } from './pod-quota';
import { persistentVolumeClaimQuotaEvaluator } from './persistent-volume-claim-quota';
import { quotaEvaluatorFor, quotaMatches } from './quota-evaluators';
import { addLists, formatResourceList, subtractNonNegative, withinBounds } from './resource-list';
import { serviceQuotaEvaluator } from './service-quota';

const now = new Date('2026-01-01T00:00:00Z');
const pod = (spec: Record<string, unknown>, status: Record<string, unknown> = {}): ApiObject => ({ metadata: { name: 'p' }, spec, status });

describe('quota evaluators', () => {
  it('adds quantities as Kubernetes does, keeping the first operand’s units', () => {
    expect(addLists({ cpu: '100m', memory: '1Gi' }, { cpu: '0.2', memory: '512Mi' })).toEqual({ cpu: '300m', memory: '1536Mi' });
    expect(subtractNonNegative({ pods: '1', cpu: '1' }, { pods: '2', cpu: '250m' })).toEqual({ pods: '0', cpu: '750m' });
    expect(withinBounds({ pods: '3', cpu: '1' }, { pods: '2' })).toEqual({ allowed: false, exceeded: ['pods'] });
    expect(formatResourceList({ pods: '1', 'limits.cpu': '500m' })).toBe('limits.cpu=500m,pods=1');
  });

  it('charges a pod its requests and limits, sidecars and init containers included, and nothing once it ended', () => {
    const spec = {
      initContainers: [
        { name: 'sidecar', restartPolicy: 'Always', resources: { requests: { cpu: '100m' } } },
        { name: 'setup', resources: { requests: { cpu: '1' }, limits: { memory: '1Gi' } } },
      ],
      containers: [{ name: 'app', resources: { requests: { cpu: '200m', memory: '64Mi' }, limits: { memory: '128Mi' } } }],
    };
    expect(podQuotaEvaluator.usage(pod(spec), now)).toEqual({
      'count/pods': '1',
      pods: '1',
      cpu: '1100m',
      'requests.cpu': '1100m',
      memory: '64Mi',
      'requests.memory': '64Mi',
      'limits.memory': '1Gi',
    });
    expect(podQuotaEvaluator.usage(pod(spec, { phase: 'Succeeded' }), now)).toEqual({ 'count/pods': '1' });
  });

  it('matches pod scopes: BestEffort, Terminating and PriorityClass selectors', () => {
    const besteffort = pod({ containers: [{ name: 'a' }], activeDeadlineSeconds: 30, priorityClassName: 'high' });
    const quota = (scopes: string[], expressions: unknown[] = []) =>
      ({ spec: { scopes, scopeSelector: { matchExpressions: expressions } }, status: { hard: { pods: '1' } } }) as never;
    expect(quotaMatches(quota(['BestEffort', 'Terminating']), podQuotaEvaluator, besteffort)).toBe(true);
    expect(quotaMatches(quota(['NotBestEffort']), podQuotaEvaluator, besteffort)).toBe(false);
    expect(quotaMatches(quota([], [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }]), podQuotaEvaluator, besteffort)).toBe(true);
    expect(quotaMatches(quota([], [{ scopeName: 'PriorityClass', operator: 'NotIn', values: ['high'] }]), podQuotaEvaluator, besteffort)).toBe(false);
    // Kinds without scopes are in no scope.
    expect(quotaMatches({ spec: { scopes: ['BestEffort'] }, status: { hard: { services: '1' } } }, serviceQuotaEvaluator, {})).toBe(false);
  });

  it('names the containers that do not state what a quota counts', () => {
    const spec = { containers: [{ name: 'b' }, { name: 'a', resources: { limits: { cpu: '1' } } }] };
    expect(podQuotaEvaluator.constraints(['limits.cpu', 'requests.memory', 'pods'], pod(spec))).toBe(
      'must specify limits.cpu for: b; requests.memory for: a,b',
    );
  });

  it('counts node ports and load balancers of Services, and storage per class of claims', () => {
    const lb = { spec: { type: 'LoadBalancer', ports: [{ port: 80 }, { port: 443 }] } };
    expect(serviceQuotaEvaluator.usage(lb, now)).toEqual({ 'count/services': '1', services: '1', 'services.nodeports': '2', 'services.loadbalancers': '1' });
    const claim = { spec: { storageClassName: 'gold', resources: { requests: { storage: '5Gi' } } } };
    expect(persistentVolumeClaimQuotaEvaluator.usage(claim, now)).toEqual({
      'count/persistentvolumeclaims': '1',
      persistentvolumeclaims: '1',
      'requests.storage': '5Gi',
      'gold.storageclass.storage.k8s.io/persistentvolumeclaims': '1',
      'gold.storageclass.storage.k8s.io/requests.storage': '5Gi',
    });
  });

  it('counts any other resource by count/<resource>.<group> and ignores events', () => {
    expect(quotaEvaluatorFor('apps', 'deployments')?.usage({}, now)).toEqual({ 'count/deployments.apps': '1' });
    expect(quotaEvaluatorFor('', 'configmaps')?.matchingResources(['configmaps', 'count/configmaps', 'pods'])).toEqual(['configmaps', 'count/configmaps']);
    expect(quotaEvaluatorFor('', 'events')).toBeUndefined();
  });
});
