import { Type, type Static } from '@sinclair/typebox';
import { ATOMIC, describeFields, ListAtomic } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';

/** Who a binding grants to: a User, a Group or a ServiceAccount. */
export const SubjectSchema = Type.Object(
  {
    kind: Type.String(),
    apiGroup: Type.Optional(Type.String()),
    name: Type.String(),
    namespace: Type.Optional(Type.String()),
  },
  ATOMIC,
);
export type Subject = Static<typeof SubjectSchema>;

/** The role a binding grants. */
export const RoleRefSchema = Type.Object(
  {
    apiGroup: Type.String(),
    kind: Type.String(),
    name: Type.String(),
  },
  ATOMIC,
);
export type RoleRef = Static<typeof RoleRefSchema>;

/** rbac/v1 RoleBinding: grants a Role or ClusterRole inside one namespace. */
export const RoleBindingSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('path-segment')),
  subjects: Type.Optional(ListAtomic(SubjectSchema)),
  roleRef: RoleRefSchema,
});
export type RoleBinding = Static<typeof RoleBindingSchema>;
export type RoleBindingList = List<RoleBinding>;

/** rbac/v1 ClusterRoleBinding: grants a ClusterRole across the cluster. */
export const ClusterRoleBindingSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('path-segment')),
  subjects: Type.Optional(ListAtomic(SubjectSchema)),
  roleRef: RoleRefSchema,
});
export type ClusterRoleBinding = Static<typeof ClusterRoleBindingSchema>;
export type ClusterRoleBindingList = List<ClusterRoleBinding>;

// What `kubectl explain` says of each field, in this project's words.
describeFields(SubjectSchema, {
  kind: 'User, Group or ServiceAccount.',
  apiGroup: '`rbac.authorization.k8s.io` for a User or Group, empty for a ServiceAccount (as they are by default).',
  name: 'The name of the user, group or service account.',
  namespace: 'For a ServiceAccount, its namespace; empty for a User or Group.',
});
describeFields(RoleRefSchema, {
  apiGroup: '`rbac.authorization.k8s.io`.',
  kind: 'Role or ClusterRole; a ClusterRoleBinding may name only a ClusterRole.',
  name: "The role's name.",
});
const BINDING_FIELDS = {
  subjects: 'Who gets the permissions.',
  roleRef: 'The role whose permissions are granted. It cannot change: delete the binding and make another.',
};
describeFields(RoleBindingSchema, BINDING_FIELDS);
describeFields(ClusterRoleBindingSchema, BINDING_FIELDS);
(RoleBindingSchema as { description?: string }).description =
  'Grants the permissions of a Role, or of a ClusterRole, to users, groups and service accounts inside one namespace.';
(ClusterRoleBindingSchema as { description?: string }).description =
  'Grants the permissions of a ClusterRole to users, groups and service accounts across the whole cluster.';
