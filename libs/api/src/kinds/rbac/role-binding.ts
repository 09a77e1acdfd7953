import { Type, type Static } from '@sinclair/typebox';
import { ATOMIC, ListAtomic } from '../../schema/builders';
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
