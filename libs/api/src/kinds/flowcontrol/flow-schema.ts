import { Type, type Static } from '@sinclair/typebox';
import { describeFields, Int32, ListAtomic, ListMap, ListSet, StringEnum, Time } from '../../schema/builders';
import { ConditionStatuses } from '../../meta/condition';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';

/** Kubernetes' flowcontrol.apiserver.k8s.io names of the wildcards and limits. */
export const FLOWCONTROL_ALL = '*';
export const FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE = 10_000;
export const FLOW_SCHEMA_DEFAULT_MATCHING_PRECEDENCE = 1000;
/** The annotation whose "true" lets the API server keep a suggested or mandatory object as it ships. */
export const AUTO_UPDATE_ANNOTATION = 'apf.kubernetes.io/autoupdate-spec';
/** A FlowSchema's condition saying whether the priority level it names is missing. */
export const FLOW_SCHEMA_CONDITION_DANGLING = 'Dangling';

export const DistinguisherMethodTypes = ['ByNamespace', 'ByUser'] as const;
export const SubjectKinds = ['Group', 'ServiceAccount', 'User'] as const;
/** The verbs a rule may name besides '*'. */
export const FlowSchemaVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'proxy', 'update', 'watch'] as const;

const NameRef = () => Type.Object({ name: Type.String() });

export const FlowSubjectSchema = Type.Object({
  kind: Type.String(),
  user: Type.Optional(NameRef()),
  group: Type.Optional(NameRef()),
  serviceAccount: Type.Optional(Type.Object({ namespace: Type.String(), name: Type.String() })),
});

export const ResourcePolicyRuleSchema = Type.Object({
  verbs: ListSet(Type.String()),
  apiGroups: ListSet(Type.String()),
  resources: ListSet(Type.String()),
  clusterScope: Type.Optional(Type.Boolean()),
  namespaces: Type.Optional(ListSet(Type.String())),
});

export const NonResourcePolicyRuleSchema = Type.Object({
  verbs: ListSet(Type.String()),
  nonResourceURLs: ListSet(Type.String()),
});

export const PolicyRulesWithSubjectsSchema = Type.Object({
  subjects: ListAtomic(FlowSubjectSchema),
  resourceRules: Type.Optional(ListAtomic(ResourcePolicyRuleSchema)),
  nonResourceRules: Type.Optional(ListAtomic(NonResourcePolicyRuleSchema)),
});

export const FlowSchemaSpecSchema = Type.Object({
  priorityLevelConfiguration: NameRef(),
  matchingPrecedence: Type.Optional(Int32()),
  distinguisherMethod: Type.Optional(Type.Object({ type: Type.String() })),
  rules: Type.Optional(ListAtomic(PolicyRulesWithSubjectsSchema)),
});

/** The condition shape of both flowcontrol kinds (no observedGeneration). */
export const FlowcontrolConditionSchema = Type.Object({
  type: Type.Optional(Type.String()),
  status: Type.Optional(StringEnum(ConditionStatuses)),
  lastTransitionTime: Type.Optional(Time()),
  reason: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
});

export const FlowSchemaStatusSchema = Type.Object({
  conditions: Type.Optional(ListMap(FlowcontrolConditionSchema, ['type'])),
});

export const FlowSchemaSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
  spec: Type.Optional(FlowSchemaSpecSchema),
  status: Type.Optional(FlowSchemaStatusSchema),
});
export type FlowSchema = Static<typeof FlowSchemaSchema>;
export type FlowSchemaList = List<FlowSchema>;
export type FlowSchemaSpec = Static<typeof FlowSchemaSpecSchema>;
export type PolicyRulesWithSubjects = Static<typeof PolicyRulesWithSubjectsSchema>;
export type FlowSubject = Static<typeof FlowSubjectSchema>;
export type ResourcePolicyRule = Static<typeof ResourcePolicyRuleSchema>;
export type NonResourcePolicyRule = Static<typeof NonResourcePolicyRuleSchema>;
export type FlowcontrolCondition = Static<typeof FlowcontrolConditionSchema>;

// What `kubectl explain` says of each field, in this project's words.
describeFields(
  FlowSchemaSchema,
  {
    spec: 'Which requests the schema matches and the priority level they go to.',
    status: 'What the API server found of the schema: whether its priority level exists.',
  },
  'A class of requests of the API server (by who sends them and what they ask) and the priority level that limits them; API Priority and Fairness.',
);
describeFields(
  FlowSchemaSpecSchema,
  {
    priorityLevelConfiguration: 'The PriorityLevelConfiguration, by name, whose seats and queues the matched requests use. Required.',
    matchingPrecedence:
      'Which schema a request goes to when several match: the lowest value wins, then the name. 1 to 10000; 1000 when left out. Only the schema named exempt may have 1.',
    distinguisherMethod:
      'How matched requests are split into flows, which the priority level queues fairly between: ByUser or ByNamespace; one flow when left out.',
    rules: 'What the schema matches: a request matches when any rule matches it. None matches nothing.',
    'priorityLevelConfiguration.name': 'The name of the PriorityLevelConfiguration.',
    'distinguisherMethod.type': 'ByUser (one flow per user) or ByNamespace (one flow per namespace of the request).',
  },
  'Which requests a FlowSchema matches, and where they go.',
);
describeFields(
  PolicyRulesWithSubjectsSchema,
  {
    subjects: 'Who the rule applies to: users, groups or service accounts. At least one.',
    resourceRules: 'The resource requests the rule matches.',
    nonResourceRules: 'The requests to paths that are not resources (/healthz, /version, ...) the rule matches.',
  },
  'Who and what a FlowSchema rule matches: a request matches when one subject and one of the rules match it.',
);
describeFields(
  FlowSubjectSchema,
  {
    kind: 'User, Group or ServiceAccount: which of the other fields names the subject.',
    user: 'The user, by name (* for any).',
    group: 'The group, by name (system:authenticated, system:unauthenticated, ... or * for any).',
    serviceAccount: 'The service account, by namespace and name (* for any name).',
    'user.name': 'The user name, or * for any user.',
    'group.name': 'The group name, or * for any group.',
    'serviceAccount.namespace': 'The namespace of the service account.',
    'serviceAccount.name': 'The service account name, or * for any in the namespace.',
  },
  'A user, group or service account a FlowSchema rule applies to.',
);
describeFields(
  ResourcePolicyRuleSchema,
  {
    verbs: 'The verbs matched (get, list, watch, create, update, patch, delete, deletecollection, proxy), or * alone for all.',
    apiGroups: 'The API groups matched ("" for the core group), or * alone for all.',
    resources: 'The resources matched, with subresources as resource/subresource, or * alone for all.',
    clusterScope: 'Whether requests that name no namespace (cluster-scoped resources, lists across namespaces) match.',
    namespaces: 'The namespaces of the requests matched, or * alone for any namespace (but not none).',
  },
  'The resource requests a FlowSchema rule matches: verb, group, resource and namespace must all match.',
);
describeFields(
  NonResourcePolicyRuleSchema,
  {
    verbs: 'The verbs matched (get, ...), or * alone for all.',
    nonResourceURLs: 'The paths matched; a path ending in /* matches everything below it, and * alone matches every path.',
  },
  'The requests to non-resource paths a FlowSchema rule matches.',
);
describeFields(
  FlowSchemaStatusSchema,
  { conditions: 'Dangling: True when the priority level the schema names does not exist.' },
  'What the API server found of a FlowSchema.',
);
describeFields(
  FlowcontrolConditionSchema,
  {
    type: 'What the condition says.',
    status: 'True, False or Unknown.',
    lastTransitionTime: 'When status last changed.',
    reason: 'Why status is what it is, as one CamelCase word that programs may match.',
    message: 'Why status is what it is, in words for people.',
  },
  'A condition of a FlowSchema or PriorityLevelConfiguration.',
);
