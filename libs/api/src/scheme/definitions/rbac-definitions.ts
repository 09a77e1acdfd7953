import { sameGroup, isRecord } from '@svc/machinery';
import { ClusterRoleSchema, RoleSchema } from '../../kinds/rbac/role';
import { ClusterRoleBindingSchema, RoleBindingSchema, type RoleBinding } from '../../kinds/rbac/role-binding';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject, TableColumn } from '../kind-definition';
import type { KindStrategy } from '../kind-strategy';
import { ageColumn, column, nameColumn } from '../table';
import { as, defineKind, records } from './define-kind';

/**
 * The RBAC kinds of rbac/v1, served as objects: their schemas, defaults (pkg/apis/rbac/v1/defaults.go),
 * validation (pkg/apis/rbac/validation) and tables (pkg/printers/internalversion). Nothing here
 * authorizes a request.
 */
export const RBAC_GROUP = 'rbac.authorization.svc.io';
/** The name manifests and clients give the group, which Kubernetes' defaults write. */
const RBAC_KUBERNETES_GROUP = 'rbac.authorization.k8s.io';

/** SetDefaults_Subject and SetDefaults_RoleRef/…Binding: the apiGroup a subject or role reference implies. */
function defaultBinding(obj: ApiObject): void {
  const roleRef = obj.roleRef;
  if (isRecord(roleRef) && (roleRef.apiGroup === undefined || roleRef.apiGroup === '')) roleRef.apiGroup = RBAC_KUBERNETES_GROUP;
  for (const subject of records(obj.subjects)) {
    if (subject.apiGroup !== undefined && subject.apiGroup !== '') continue;
    // A ServiceAccount's apiGroup is the core group's "", which the wire omits.
    if (subject.kind === 'User' || subject.kind === 'Group') subject.apiGroup = RBAC_KUBERNETES_GROUP;
  }
}

/** ValidatePolicyRule: verbs required; resources need apiGroups; URLs only in cluster roles and never with resources. */
function validateRules(obj: ApiObject, namespaced: boolean): FieldError[] {
  const errors: FieldError[] = [];
  records(obj.rules).forEach((rule, i) => {
    const at = `rules[${i}]`;
    const verbs = Array.isArray(rule.verbs) ? rule.verbs : [];
    if (verbs.length === 0) errors.push(fieldErrors.required(`${at}.verbs`, 'verbs must contain at least one value'));
    const urls = Array.isArray(rule.nonResourceURLs) ? rule.nonResourceURLs : [];
    const resources = Array.isArray(rule.resources) ? rule.resources : [];
    if (urls.length > 0) {
      if (namespaced) errors.push(fieldErrors.invalid(`${at}.nonResourceURLs`, urls, 'namespaced rules cannot apply to non-resource URLs'));
      if ((Array.isArray(rule.apiGroups) && rule.apiGroups.length > 0) || resources.length > 0) {
        errors.push(fieldErrors.invalid(`${at}.nonResourceURLs`, urls, 'rules cannot apply to both regular resources and non-resource URLs'));
      }
      return;
    }
    if (!Array.isArray(rule.apiGroups) || rule.apiGroups.length === 0) {
      errors.push(fieldErrors.required(`${at}.apiGroups`, 'resource rules must supply at least one api group'));
    }
    if (resources.length === 0) errors.push(fieldErrors.required(`${at}.resources`, 'resource rules must supply at least one resource'));
  });
  return errors;
}

const SUBJECT_KINDS = ['ServiceAccount', 'User', 'Group'];

/** ValidateRoleBindingSubject and the role reference rules (apiGroup, kind, name). */
function validateBinding(obj: ApiObject, roleKinds: readonly string[], namespaced: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const roleRef = isRecord(obj.roleRef) ? obj.roleRef : {};
  if (typeof roleRef.apiGroup === 'string' && !sameGroup(roleRef.apiGroup, RBAC_GROUP)) {
    errors.push(fieldErrors.notSupported('roleRef.apiGroup', roleRef.apiGroup, [RBAC_KUBERNETES_GROUP]));
  }
  if (typeof roleRef.kind === 'string' && !roleKinds.includes(roleRef.kind))
    errors.push(fieldErrors.notSupported('roleRef.kind', roleRef.kind, [...roleKinds]));
  if (roleRef.name === '') errors.push(fieldErrors.required('roleRef.name'));
  records(obj.subjects).forEach((subject, i) => {
    const at = `subjects[${i}]`;
    if (subject.name === '') errors.push(fieldErrors.required(`${at}.name`));
    switch (subject.kind) {
      case 'ServiceAccount':
        if (subject.apiGroup !== '' && subject.apiGroup !== undefined) errors.push(fieldErrors.notSupported(`${at}.apiGroup`, subject.apiGroup, ['']));
        if (!namespaced && !subject.namespace) errors.push(fieldErrors.required(`${at}.namespace`));
        break;
      case 'User':
      case 'Group':
        if (typeof subject.apiGroup === 'string' && !sameGroup(subject.apiGroup, RBAC_GROUP)) {
          errors.push(fieldErrors.notSupported(`${at}.apiGroup`, subject.apiGroup, [RBAC_KUBERNETES_GROUP]));
        }
        break;
      default:
        errors.push(fieldErrors.notSupported(`${at}.kind`, subject.kind, SUBJECT_KINDS));
    }
  });
  return errors;
}

/** A binding's roleRef cannot change (ValidateRoleBindingUpdate). */
const bindingStrategy: KindStrategy = {
  validateUpdate(object, current) {
    return JSON.stringify(object.roleRef) === JSON.stringify(current.roleRef) ? [] : [fieldErrors.invalid('roleRef', object.roleRef, 'cannot change roleRef')];
  },
};

function subjectsOf(obj: ApiObject, kind: string): string {
  const names = (as<RoleBinding>(obj).subjects ?? [])
    .filter((s) => s.kind === kind)
    .map((s) => (kind === 'ServiceAccount' ? `${s.namespace ?? ''}/${s.name}` : s.name));
  return names.join(', ');
}

/** printRoleBinding / printClusterRoleBinding. */
function bindingColumns(): TableColumn[] {
  return [
    nameColumn(),
    column('Role', 'string', (o) => `${as<RoleBinding>(o).roleRef?.kind ?? ''}/${as<RoleBinding>(o).roleRef?.name ?? ''}`, {
      description: 'Role of the binding.',
    }),
    ageColumn(),
    column('Users', 'string', (o) => subjectsOf(o, 'User'), { priority: 1, description: 'Users in the binding.' }),
    column('Groups', 'string', (o) => subjectsOf(o, 'Group'), { priority: 1, description: 'Groups in the binding.' }),
    column('ServiceAccounts', 'string', (o) => subjectsOf(o, 'ServiceAccount'), { priority: 1, description: 'ServiceAccounts in the binding.' }),
  ];
}

export const roleDefinition = defineKind({
  group: RBAC_GROUP,
  version: 'v1',
  kind: 'Role',
  resource: 'roles',
  namespaced: true,
  schema: RoleSchema,
  allowCreateOnUpdate: true,
  validationRules: [(o) => validateRules(o, true)],
});

export const clusterRoleDefinition = defineKind({
  group: RBAC_GROUP,
  version: 'v1',
  kind: 'ClusterRole',
  resource: 'clusterroles',
  namespaced: false,
  schema: ClusterRoleSchema,
  allowCreateOnUpdate: true,
  validationRules: [(o) => validateRules(o, false)],
});

export const roleBindingDefinition = defineKind({
  group: RBAC_GROUP,
  version: 'v1',
  kind: 'RoleBinding',
  resource: 'rolebindings',
  namespaced: true,
  schema: RoleBindingSchema,
  allowCreateOnUpdate: true,
  defaultHooks: [defaultBinding],
  validationRules: [(o) => validateBinding(o, ['Role', 'ClusterRole'], true)],
  strategy: bindingStrategy,
  columns: bindingColumns(),
});

export const clusterRoleBindingDefinition = defineKind({
  group: RBAC_GROUP,
  version: 'v1',
  kind: 'ClusterRoleBinding',
  resource: 'clusterrolebindings',
  namespaced: false,
  schema: ClusterRoleBindingSchema,
  allowCreateOnUpdate: true,
  defaultHooks: [defaultBinding],
  validationRules: [(o) => validateBinding(o, ['ClusterRole'], false)],
  strategy: bindingStrategy,
  columns: bindingColumns(),
});
