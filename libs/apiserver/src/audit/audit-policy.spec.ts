import { ANONYMOUS_USER } from '@svc/machinery';
import { requestInfo } from '../request/request-info';
import { evaluatePolicy, parseAuditPolicy } from './audit-policy';

const POLICY = `
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: None
    users: ["system:kube-proxy"]
    verbs: ["watch"]
  - level: None
    nonResourceURLs: ["/healthz*", "/version"]
  - level: Metadata
    resources:
      - group: ""
        resources: ["secrets", "configmaps"]
  - level: Request
    userGroups: ["system:nodes"]
    resources:
      - group: ""
        resources: ["pods/status"]
  - level: RequestResponse
    namespaces: ["audited"]
    omitStages: [ResponseStarted]
    omitManagedFields: true
  - level: Request
    resources:
      - group: "coordination.k8s.io"
        resources: ["leases"]
        resourceNames: ["watched"]
  - level: Metadata
`;

const info = (method: string, path: string) => requestInfo(method, path, new URLSearchParams());

describe('audit policy', () => {
  const policy = parseAuditPolicy(POLICY);

  it('takes the first matching rule: users and verbs, non-resource URLs with a trailing *, groups and resources', () => {
    const proxy = { name: 'system:kube-proxy', groups: ['system:authenticated'] };
    expect(evaluatePolicy(policy, proxy, info('GET', '/api/v1/pods')).level).toBe('Metadata');
    expect(evaluatePolicy(policy, proxy, requestInfo('GET', '/api/v1/pods', new URLSearchParams('watch=true'))).level).toBe('None');
    expect(evaluatePolicy(policy, ANONYMOUS_USER, info('GET', '/healthz/etcd')).level).toBe('None');
    expect(evaluatePolicy(policy, ANONYMOUS_USER, info('GET', '/version')).level).toBe('None');
    expect(evaluatePolicy(policy, ANONYMOUS_USER, info('GET', '/versions')).level).toBe('Metadata');
    expect(evaluatePolicy(policy, ANONYMOUS_USER, info('GET', '/api/v1/namespaces/audited/secrets/s')).level).toBe('Metadata');
    const node = { name: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
    expect(evaluatePolicy(policy, node, info('PUT', '/api/v1/namespaces/a/pods/p/status')).level).toBe('Request');
    expect(evaluatePolicy(policy, ANONYMOUS_USER, info('PUT', '/api/v1/namespaces/a/pods/p/status')).level).toBe('Metadata');
    expect(evaluatePolicy(policy, node, info('PUT', '/api/v1/namespaces/a/pods/p')).level).toBe('Metadata');
  });

  it('matches namespaces, resource names and a group by its svc.io name; stages and managed fields combine', () => {
    const audited = evaluatePolicy(policy, ANONYMOUS_USER, info('POST', '/apis/apps/v1/namespaces/audited/deployments'));
    expect(audited.level).toBe('RequestResponse');
    expect([...audited.omitStages].sort()).toEqual(['RequestReceived', 'ResponseStarted']);
    expect(audited.omitManagedFields).toBe(true);
    expect(evaluatePolicy(policy, ANONYMOUS_USER, info('GET', '/apis/coordination.svc.io/v1/namespaces/x/leases/watched')).level).toBe('Request');
    expect(evaluatePolicy(policy, ANONYMOUS_USER, info('GET', '/apis/coordination.k8s.io/v1/namespaces/x/leases/other')).level).toBe('Metadata');
    const other = evaluatePolicy(policy, ANONYMOUS_USER, info('GET', '/apis/coordination.k8s.io/v1/namespaces/x/leases/other'));
    expect([...other.omitStages]).toEqual(['RequestReceived']);
    expect(other.omitManagedFields).toBe(false);
  });

  it('audits nothing for a request no rule matches', () => {
    const narrow = parseAuditPolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  verbs: [create]\n');
    expect(evaluatePolicy(narrow, ANONYMOUS_USER, info('GET', '/api/v1/pods')).level).toBe('None');
    expect(evaluatePolicy(narrow, ANONYMOUS_USER, info('POST', '/api/v1/namespaces/a/pods')).level).toBe('Metadata');
  });

  it('refuses a policy it cannot honour, naming the place', () => {
    const bad = (rules: string) => () => parseAuditPolicy(`apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n${rules}`);
    expect(bad('- level: Everything\n')).toThrow('rules[0].level must be one of None, Metadata, Request, RequestResponse');
    expect(bad('- level: None\n  omitStages: [Done]\n')).toThrow('rules[0].omitStages: unknown stage "Done"');
    expect(bad('- level: None\n  nonResourceURLs: ["/x"]\n  resources: [{group: ""}]\n')).toThrow('both regular resources and non-resource URLs');
    expect(bad('- level: None\n  nonResourceURLs: ["/x*y"]\n')).toThrow('may hold * only at its end');
    expect(() => parseAuditPolicy('apiVersion: v1\nkind: Policy\nrules: []')).toThrow('apiVersion must be one of');
  });
});
