import { AUTO_UPDATE_ANNOTATION, FLOWCONTROL_ALL, type FlowSchema, type FlowSubject, type PolicyRulesWithSubjects } from './flow-schema';
import type { PriorityLevelConfiguration, PriorityLevelConfigurationSpec } from './priority-level-configuration';

// The configuration every API server keeps, as Kubernetes' apiserver/pkg/apis/flowcontrol/bootstrap:
// mandatory objects (exempt, catch-all) always as shipped, suggested ones unless a user turned off
// their annotation. The figures (shares, queues, precedences) are Kubernetes' own.

const FLOWCONTROL_GROUP_VERSION = 'flowcontrol.apiserver.k8s.io/v1';

function level(name: string, spec: PriorityLevelConfigurationSpec): PriorityLevelConfiguration {
  return {
    apiVersion: FLOWCONTROL_GROUP_VERSION,
    kind: 'PriorityLevelConfiguration',
    metadata: { name, annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } },
    spec,
  };
}

function queued(shares: number, lendablePercent: number, queues: number, handSize: number): PriorityLevelConfigurationSpec {
  return {
    type: 'Limited',
    limited: {
      nominalConcurrencyShares: shares,
      lendablePercent,
      limitResponse: { type: 'Queue', queuing: { queues, handSize, queueLengthLimit: 50 } },
    },
  };
}

function schema(
  name: string,
  levelName: string,
  matchingPrecedence: number,
  distinguisher: 'ByUser' | 'ByNamespace' | undefined,
  rule: PolicyRulesWithSubjects,
): FlowSchema {
  return {
    apiVersion: FLOWCONTROL_GROUP_VERSION,
    kind: 'FlowSchema',
    metadata: { name, annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } },
    spec: {
      priorityLevelConfiguration: { name: levelName },
      matchingPrecedence,
      ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
      rules: [rule],
    },
  };
}

const groups = (...names: string[]): FlowSubject[] => names.map((name) => ({ kind: 'Group', group: { name } }));
const users = (...names: string[]): FlowSubject[] => names.map((name) => ({ kind: 'User', user: { name } }));
const kubeSystemServiceAccounts = (...names: string[]): FlowSubject[] =>
  names.map((name) => ({ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name } }));

const everyResource = {
  verbs: [FLOWCONTROL_ALL],
  apiGroups: [FLOWCONTROL_ALL],
  resources: [FLOWCONTROL_ALL],
  namespaces: [FLOWCONTROL_ALL],
  clusterScope: true,
};
const everyPath = { verbs: [FLOWCONTROL_ALL], nonResourceURLs: [FLOWCONTROL_ALL] };
const everything = (subjects: FlowSubject[]): PolicyRulesWithSubjects => ({ subjects, resourceRules: [everyResource], nonResourceRules: [everyPath] });
const leaseVerbs = ['get', 'create', 'update'];

const ALL_AUTHENTICATED = 'system:authenticated';
const ALL_UNAUTHENTICATED = 'system:unauthenticated';
const NODES_GROUP = 'system:nodes';
const CONTROLLER_MANAGER_USER = 'system:kube-controller-manager';
const SCHEDULER_USER = 'system:kube-scheduler';

export const PRIORITY_LEVEL_EXEMPT = 'exempt';
export const PRIORITY_LEVEL_CATCH_ALL = 'catch-all';
export const FLOW_SCHEMA_EXEMPT = 'exempt';
export const FLOW_SCHEMA_CATCH_ALL = 'catch-all';

export const MANDATORY_PRIORITY_LEVELS: readonly PriorityLevelConfiguration[] = [
  level(PRIORITY_LEVEL_CATCH_ALL, { type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } } }),
  level(PRIORITY_LEVEL_EXEMPT, { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } }),
];

export const MANDATORY_FLOW_SCHEMAS: readonly FlowSchema[] = [
  schema(FLOW_SCHEMA_EXEMPT, PRIORITY_LEVEL_EXEMPT, 1, undefined, everything(groups('system:masters'))),
  schema(FLOW_SCHEMA_CATCH_ALL, PRIORITY_LEVEL_CATCH_ALL, 10000, 'ByUser', everything(groups(ALL_UNAUTHENTICATED, ALL_AUTHENTICATED))),
];

export const SUGGESTED_PRIORITY_LEVELS: readonly PriorityLevelConfiguration[] = [
  level('system', queued(30, 33, 64, 6)),
  level('node-high', queued(40, 25, 64, 6)),
  level('leader-election', queued(10, 0, 16, 4)),
  level('workload-high', queued(40, 50, 128, 6)),
  level('workload-low', queued(100, 90, 128, 6)),
  level('global-default', queued(20, 50, 128, 6)),
];

export const SUGGESTED_FLOW_SCHEMAS: readonly FlowSchema[] = [
  schema('system-nodes', 'system', 500, 'ByUser', everything(groups(NODES_GROUP))),
  schema('system-node-high', 'node-high', 400, 'ByUser', {
    subjects: groups(NODES_GROUP),
    resourceRules: [
      { verbs: [FLOWCONTROL_ALL], apiGroups: [''], resources: ['nodes', 'nodes/status'], namespaces: [FLOWCONTROL_ALL], clusterScope: true },
      { verbs: [FLOWCONTROL_ALL], apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: [FLOWCONTROL_ALL], clusterScope: false },
    ],
  }),
  schema('probes', PRIORITY_LEVEL_EXEMPT, 2, undefined, {
    subjects: groups(ALL_UNAUTHENTICATED, ALL_AUTHENTICATED),
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }],
  }),
  schema('system-leader-election', 'leader-election', 100, 'ByUser', {
    subjects: [...users(CONTROLLER_MANAGER_USER, SCHEDULER_USER), ...kubeSystemServiceAccounts(FLOWCONTROL_ALL)],
    resourceRules: [{ verbs: leaseVerbs, apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: [FLOWCONTROL_ALL], clusterScope: false }],
  }),
  schema('workload-leader-election', 'leader-election', 200, 'ByUser', {
    subjects: kubeSystemServiceAccounts(FLOWCONTROL_ALL),
    resourceRules: [
      { verbs: leaseVerbs, apiGroups: [''], resources: ['endpoints', 'configmaps'], namespaces: [FLOWCONTROL_ALL], clusterScope: false },
      { verbs: leaseVerbs, apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: [FLOWCONTROL_ALL], clusterScope: false },
    ],
  }),
  schema('endpoint-controller', 'workload-high', 150, 'ByUser', {
    subjects: [...users(CONTROLLER_MANAGER_USER), ...kubeSystemServiceAccounts('endpoint-controller', 'endpointslicemirroring-controller')],
    resourceRules: [{ verbs: leaseVerbs, apiGroups: [''], resources: ['endpoints'], namespaces: [FLOWCONTROL_ALL], clusterScope: false }],
  }),
  schema('kube-controller-manager', 'workload-high', 800, 'ByNamespace', everything(users(CONTROLLER_MANAGER_USER))),
  schema('kube-scheduler', 'workload-high', 800, 'ByNamespace', everything(users(SCHEDULER_USER))),
  schema('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', everything(kubeSystemServiceAccounts(FLOWCONTROL_ALL))),
  schema('service-accounts', 'workload-low', 9000, 'ByUser', everything(groups('system:serviceaccounts'))),
  schema('global-default', 'global-default', 9900, 'ByUser', everything(groups(ALL_UNAUTHENTICATED, ALL_AUTHENTICATED))),
];
