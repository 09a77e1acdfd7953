import { fieldErrorMessage } from '@svc/machinery';
import { compileKind } from '../../schema/compile-kind';
import type { ApiObject, KindDefinition } from '../kind-definition';
import { buildTable } from '../table';
import { limitRangeDefinition } from './limit-range-definition';
import { resourceQuotaDefinition } from './resource-quota-definition';

// ResourceQuota's and LimitRange's defaults, validation and tables, against what Kubernetes 1.32 answers.

function created(def: KindDefinition, input: unknown): { object: ApiObject; errors: string[] } {
  const object = structuredClone(input) as ApiObject;
  compileKind(def).default(object);
  return { object, errors: compileKind(def).validate(object).map(fieldErrorMessage) };
}

const quota = (spec: Record<string, unknown>, status?: Record<string, unknown>) => ({
  metadata: { name: 'q', namespace: 'ns' },
  spec,
  ...(status ? { status } : {}),
});
const range = (...limits: Record<string, unknown>[]) => ({ metadata: { name: 'lr', namespace: 'ns' }, spec: { limits } });

describe('ResourceQuota', () => {
  it('takes standard names, count/ names, storage class names and extended requests', () => {
    const hard = {
      pods: '10',
      'requests.cpu': '2',
      'count/deployments.apps': '3',
      'gold.storageclass.storage.k8s.io/requests.storage': '10Gi',
      'requests.example.com/gpu': '1',
    };
    expect(created(resourceQuotaDefinition, quota({ hard })).errors).toEqual([]);
  });

  it('refuses negative amounts, fractions of counts and names quota does not know', () => {
    expect(created(resourceQuotaDefinition, quota({ hard: { pods: '-1', services: '0.5', widgets: '1' } })).errors).toEqual([
      'spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0',
      'spec.hard[services]: Invalid value: "500m": must be an integer',
      'spec.hard[widgets]: Invalid value: "widgets": must be a standard resource type or fully qualified',
      'spec.hard[widgets]: Invalid value: "widgets": must be a standard resource for quota',
    ]);
  });

  it('checks scopes and scope selectors as Kubernetes does', () => {
    expect(created(resourceQuotaDefinition, quota({ hard: { services: '1' }, scopes: ['BestEffort'] })).errors).toEqual([
      'spec.scopes: Invalid value: []string{"BestEffort"}: unsupported scope applied to resource',
    ]);
    expect(created(resourceQuotaDefinition, quota({ hard: { pods: '1' }, scopes: ['Terminating', 'NotTerminating'] })).errors).toEqual([
      'spec.scopes: Invalid value: []string{"Terminating", "NotTerminating"}: conflicting scopes',
    ]);
    const selector = (req: Record<string, unknown>) => quota({ hard: { pods: '1' }, scopeSelector: { matchExpressions: [req] } });
    expect(created(resourceQuotaDefinition, selector({ scopeName: 'PriorityClass', operator: 'In', values: ['high'] })).errors).toEqual([]);
    expect(created(resourceQuotaDefinition, selector({ scopeName: 'PriorityClass', operator: 'In' })).errors).toEqual([
      "spec.scopeSelector.values: Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
    ]);
    expect(created(resourceQuotaDefinition, selector({ scopeName: 'BestEffort', operator: 'In', values: ['x'] })).errors[0]).toMatch(
      /^spec.scopeSelector.operator: Invalid value: "In": must be 'Exist' when scope is any of/,
    );
  });

  it('prints REQUEST and LIMIT as kubectl get quota shows them', () => {
    const q = quota(
      { hard: { pods: '4', 'limits.cpu': '2', 'requests.memory': '1Gi' } },
      { hard: { pods: '4', 'limits.cpu': '2', 'requests.memory': '1Gi' }, used: { pods: '1', 'limits.cpu': '500m' } },
    );
    const row = buildTable(resourceQuotaDefinition, [q], { now: new Date() });
    expect(row.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Age', 'Request', 'Limit']);
    expect(row.rows[0].cells.slice(2)).toEqual(['pods: 1/4, requests.memory: 0/1Gi', 'limits.cpu: 500m/2']);
  });
});

describe('LimitRange', () => {
  it("defaults a Container item's limit from its max and its request from the limit, else from its min", () => {
    const { object, errors } = created(
      limitRangeDefinition,
      range({ type: 'Container', max: { cpu: '1' }, min: { memory: '64Mi' }, default: { memory: '128Mi' } }),
    );
    expect(errors).toEqual([]);
    expect((object.spec as { limits: unknown[] }).limits[0]).toEqual({
      type: 'Container',
      max: { cpu: '1' },
      min: { memory: '64Mi' },
      default: { memory: '128Mi', cpu: '1' },
      defaultRequest: { memory: '128Mi', cpu: '1' },
    });
  });

  it('refuses bounds that contradict each other, and defaults on a Pod item', () => {
    expect(
      created(limitRangeDefinition, range({ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' }, maxLimitRequestRatio: { cpu: '500m' } })).errors,
    ).toEqual([
      'spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1',
      'spec.limits[0].defaultRequest[cpu]: Invalid value: "1": min value 2 is greater than default request value 1',
      'spec.limits[0].default[cpu]: Invalid value: "2": min value 2 is greater than default value 1',
      'spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "500m": ratio 500m is less than 1',
    ]);
    expect(created(limitRangeDefinition, range({ type: 'Pod', default: { cpu: '1' } })).errors).toEqual([
      "spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'",
    ]);
    expect(created(limitRangeDefinition, range({ type: 'Container' }, { type: 'Container' })).errors).toEqual([
      'spec.limits[1].type: Duplicate value: "Container"',
    ]);
    expect(created(limitRangeDefinition, range({ type: 'Widget' })).errors).toEqual([
      'spec.limits[0].type: Invalid value: "Widget": must be a standard limit type or fully qualified',
    ]);
  });
});
