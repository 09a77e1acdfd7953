import { Type, type Static } from '@sinclair/typebox';
import { describeFields, ListAtomic } from '../../schema/builders';

/** One rule of a Role or ClusterRole (rbac/v1 PolicyRule): what verbs it allows on which resources or URLs. */
export const PolicyRuleSchema = Type.Object({
  verbs: ListAtomic(Type.String()),
  apiGroups: Type.Optional(ListAtomic(Type.String())),
  resources: Type.Optional(ListAtomic(Type.String())),
  resourceNames: Type.Optional(ListAtomic(Type.String())),
  nonResourceURLs: Type.Optional(ListAtomic(Type.String())),
});
export type PolicyRule = Static<typeof PolicyRuleSchema>;

// What `kubectl explain` says of each field, in this project's words.
describeFields(PolicyRuleSchema, {
  verbs: 'The verbs allowed: get, list, watch, create, update, patch, delete, deletecollection, others such as bind, escalate or impersonate, or `*` for all.',
  apiGroups: 'The API groups of the resources: `""` for the core group, `*` for any.',
  resources: 'The resources, such as `pods`: `pods/log` for a subresource, `*` for every resource, `*/scale` for that subresource of any.',
  resourceNames:
    'Only these objects, by name; any when empty. Names cannot limit create or deletecollection, and limit list and watch only when the request selects that one name.',
  nonResourceURLs:
    'URLs that are not resources, such as `/healthz`, with `*` at the end as a wildcard. Only in a ClusterRole bound by a ClusterRoleBinding; not with resources.',
});
