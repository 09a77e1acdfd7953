import { Type, type Static } from '@sinclair/typebox';
import { describeFields, ListAtomic } from '../../schema/builders';
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

// What `kubectl explain` says of each field, in this project's words.
describeFields(RoleSchema, { rules: 'What the role allows.' });
(RoleSchema as { description?: string }).description = 'Permissions inside one namespace, granted by RoleBindings there.';
describeFields(AggregationRuleSchema, {
  clusterRoleSelectors: 'Selectors of the ClusterRoles whose rules are taken; a role any of them matches counts.',
});
describeFields(ClusterRoleSchema, {
  rules: 'What the role allows.',
  aggregationRule:
    'When set, the rules are those of every ClusterRole the selectors match, kept up to date by the controller manager; rules written by hand are overwritten.',
});
(ClusterRoleSchema as { description?: string }).description =
  'Permissions on resources across the cluster and on URLs that are not resources; bound by a RoleBinding, they apply inside its namespace only.';
