import { Type, type Static } from '@sinclair/typebox';
import { ATOMIC, DescribedAs, ListAtomic } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';
import { ResourceListSchema } from './container';

/** The scopes a quota may be limited to (Kubernetes' ResourceQuotaScope). */
export const ResourceQuotaScopes = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity'] as const;
export type ResourceQuotaScope = (typeof ResourceQuotaScopes)[number];

/** The operators of a scope selector (Kubernetes' ScopeSelectorOperator). */
export const ScopeSelectorOperators = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;

export const ScopedResourceSelectorRequirementSchema = Type.Object(
  {
    scopeName: Type.String({ description: 'The scope the selector applies to.' }),
    operator: Type.String({ description: "How the scope's value is compared with the values: In, NotIn, Exists or DoesNotExist." }),
    values: Type.Optional(ListAtomic(Type.String(), { description: 'The values In and NotIn compare with; empty for Exists and DoesNotExist.' })),
  },
  { description: "One requirement on an object's scope: the scope's name, an operator and the values it compares with." },
);

export const ScopeSelectorSchema = Type.Object(
  {
    matchExpressions: Type.Optional(ListAtomic(ScopedResourceSelectorRequirementSchema, { description: 'Requirements, all of which must hold.' })),
  },
  { ...ATOMIC, description: 'Which scopes the objects a quota counts must be in: the requirements of their scopes, all of which must hold.' },
);

export const ResourceQuotaSpecSchema = Type.Object(
  {
    hard: Type.Optional(DescribedAs(ResourceListSchema, 'The most of each named resource the objects the quota counts may use together.')),
    scopes: Type.Optional(ListAtomic(Type.String(), { description: 'The scopes every object the quota counts must match; none means all objects.' })),
    scopeSelector: Type.Optional(
      DescribedAs(ScopeSelectorSchema, 'Scopes as requirements (the PriorityClass scope needs one); every object the quota counts must be in them.'),
    ),
  },
  { description: 'What a quota limits, and which objects it counts.' },
);

export const ResourceQuotaStatusSchema = Type.Object(
  {
    hard: Type.Optional(DescribedAs(ResourceListSchema, 'The limits in force: spec.hard as the quota controller last copied it.')),
    used: Type.Optional(DescribedAs(ResourceListSchema, 'What the counted objects of the namespace use now of each limited resource.')),
  },
  { description: "A quota's limits in force and the namespace's use of them, kept by the quota controller and charged by admission." },
);

export const ResourceQuotaSchema = Type.Object(
  {
    apiVersion: Type.Optional(Type.String({ description: 'v1.' })),
    kind: Type.Optional(Type.String({ description: 'ResourceQuota.' })),
    metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
    spec: Type.Optional(ResourceQuotaSpecSchema),
    status: Type.Optional(ResourceQuotaStatusSchema),
  },
  { description: 'The most of each resource the objects of a namespace may use together, and how much they use now.' },
);
export type ResourceQuota = Static<typeof ResourceQuotaSchema>;
export type ResourceQuotaList = List<ResourceQuota>;
export type ResourceQuotaSpec = Static<typeof ResourceQuotaSpecSchema>;
export type ScopedResourceSelectorRequirement = Static<typeof ScopedResourceSelectorRequirementSchema>;

/** The compute resources of a container or pod, bare and as quota's `requests.`/`limits.` names. */
export const COMPUTE_RESOURCE_NAMES: readonly string[] = ['cpu', 'memory', 'ephemeral-storage'].flatMap((r) => [r, `requests.${r}`, `limits.${r}`]);

/** Names whose amounts are counts of objects, so whole numbers (Kubernetes' integerResources, plus `count/`). */
export const INTEGER_QUOTA_RESOURCES: ReadonlySet<string> = new Set([
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'persistentvolumeclaims',
  'configmaps',
  'services.nodeports',
  'services.loadbalancers',
]);

/**
 * The names a quota may use without a `/` (Kubernetes' standardQuotaResources): compute, storage
 * requests and the object counts. Any other name must be qualified (`count/deployments.apps`,
 * `gold.storageclass.storage.k8s.io/requests.storage`, `requests.example.com/gpu`) or be of huge pages.
 */
export const STANDARD_QUOTA_RESOURCES: ReadonlySet<string> = new Set([...COMPUTE_RESOURCE_NAMES, 'requests.storage', ...INTEGER_QUOTA_RESOURCES]);

/** Kubernetes' IsIntegerResourceName: object counts (the legacy names and `count/<resource>`). */
export function isIntegerQuotaResource(name: string): boolean {
  return INTEGER_QUOTA_RESOURCES.has(name) || name.startsWith('count/');
}
