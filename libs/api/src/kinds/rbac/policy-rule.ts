import { Type, type Static } from '@sinclair/typebox';
import { ListAtomic } from '../../schema/builders';

/** One rule of a Role or ClusterRole (rbac/v1 PolicyRule): what verbs it allows on which resources or URLs. */
export const PolicyRuleSchema = Type.Object({
  verbs: ListAtomic(Type.String()),
  apiGroups: Type.Optional(ListAtomic(Type.String())),
  resources: Type.Optional(ListAtomic(Type.String())),
  resourceNames: Type.Optional(ListAtomic(Type.String())),
  nonResourceURLs: Type.Optional(ListAtomic(Type.String())),
});
export type PolicyRule = Static<typeof PolicyRuleSchema>;
