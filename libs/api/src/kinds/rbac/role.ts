import { Type, type Static } from '@sinclair/typebox';
import { ListAtomic } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import { LabelSelectorSchema } from '../../meta/label-selector';
import type { List } from '../../meta/list';
import { PolicyRuleSchema } from './policy-rule';

/** rbac/v1 Role: rules that apply inside one namespace. Names follow Kubernetes' path-segment rule. */
export const RoleSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('path-segment')),
  rules: Type.Optional(ListAtomic(PolicyRuleSchema)),
});
export type Role = Static<typeof RoleSchema>;
export type RoleList = List<Role>;

export const AggregationRuleSchema = Type.Object({
  clusterRoleSelectors: Type.Optional(ListAtomic(LabelSelectorSchema)),
});

/** rbac/v1 ClusterRole: rules across the cluster, or aggregated from the ClusterRoles its selectors pick. */
export const ClusterRoleSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('path-segment')),
  rules: Type.Optional(ListAtomic(PolicyRuleSchema)),
  aggregationRule: Type.Optional(AggregationRuleSchema),
});
export type ClusterRole = Static<typeof ClusterRoleSchema>;
export type ClusterRoleList = List<ClusterRole>;
