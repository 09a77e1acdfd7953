import type { PolicyRule } from '@svc/api';
import { covers, MAX_BREAKDOWN, ruleAllows } from './policy-rules';

const base = { verb: 'get', isResourceRequest: true, namespace: 'ns', apiGroup: '', apiVersion: 'v1', resource: 'pods', subresource: '', name: 'p', path: '' };

describe('RBAC rule matching', () => {
  it('matches verbs, groups, resources, subresources and names as Kubernetes does', () => {
    const rule: PolicyRule = { verbs: ['get'], apiGroups: [''], resources: ['pods', 'pods/log'] };
    expect(ruleAllows(base, rule)).toBe(true);
    expect(ruleAllows({ ...base, verb: 'list' }, rule)).toBe(false);
    expect(ruleAllows({ ...base, subresource: 'log' }, rule)).toBe(true);
    expect(ruleAllows({ ...base, subresource: 'exec' }, rule)).toBe(false);
    expect(ruleAllows({ ...base, subresource: 'exec' }, { verbs: ['*'], apiGroups: [''], resources: ['*/exec'] })).toBe(true);
    expect(ruleAllows(base, { ...rule, resourceNames: ['q'] })).toBe(false);
    expect(ruleAllows(base, { ...rule, resourceNames: ['p'] })).toBe(true);
    expect(ruleAllows({ ...base, apiGroup: 'apps' }, rule)).toBe(false);
  });

  it("matches a group's svc.io and k8s.io names alike", () => {
    const rule: PolicyRule = { verbs: ['list'], apiGroups: ['coordination.k8s.io'], resources: ['leases'] };
    expect(ruleAllows({ ...base, verb: 'list', apiGroup: 'coordination.svc.io', resource: 'leases' }, rule)).toBe(true);
    expect(ruleAllows({ ...base, verb: 'list', apiGroup: 'coordination.k8s.io', resource: 'leases' }, { ...rule, apiGroups: ['coordination.svc.io'] })).toBe(
      true,
    );
  });

  it('matches non-resource URLs exactly or by a trailing star', () => {
    const nonResource = { ...base, isResourceRequest: false, path: '/healthz/etcd' };
    expect(ruleAllows(nonResource, { verbs: ['get'], nonResourceURLs: ['/healthz/*'] })).toBe(true);
    expect(ruleAllows(nonResource, { verbs: ['get'], nonResourceURLs: ['/healthz'] })).toBe(false);
  });

  it('says which requested rules the held ones do not cover', () => {
    const held: PolicyRule[] = [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'configmaps'] }];
    expect(covers(held, [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['x'] }]).covered).toBe(true);
    const { covered, missing } = covers(held, [{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['pods'] }]);
    expect(covered).toBe(false);
    expect(missing).toEqual([{ verbs: ['delete'], apiGroups: [''], resources: ['pods'] }]);
    expect(
      covers([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], [{ verbs: ['get'], apiGroups: ['apps'], resources: ['deployments/scale'] }]).covered,
    ).toBe(true);
  });

  it('does not break down a hostile rule whose lists multiply past the bound', () => {
    const many = Array.from({ length: 100 }, (_, i) => `x${i}`);
    const hostile: PolicyRule = { verbs: many, apiGroups: many, resources: many, resourceNames: many };
    const started = Date.now();
    const result = covers([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], [hostile]);
    expect(result.covered).toBe(false);
    expect(result.missing).toEqual([hostile]);
    expect(100 ** 4).toBeGreaterThan(MAX_BREAKDOWN);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
