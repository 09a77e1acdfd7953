import type { PolicyRule } from '@svc/api';
import { newForbidden, sameGroup, type StatusError } from '@svc/machinery';
import type { AdmissionAttributes, AdmissionPlugin } from '../../admission/admission';
import { SYSTEM_MASTERS_GROUP, type AuthorizationAttributes, type Authorizer } from '../authorizer';
import type { UserInfo } from '@svc/machinery';
import { covers, rulesOf } from './policy-rules';
import type { RbacAuthorizer } from './rbac-authorizer';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const ROLE_KINDS: Record<string, string> = { roles: 'Role', clusterroles: 'ClusterRole' };
const BINDING_KINDS: Record<string, string> = { rolebindings: 'RoleBinding', clusterrolebindings: 'ClusterRoleBinding' };
// The permissions a refusal lists; a longer list is cut (the rest is counted).
const MAX_LISTED_RULES = 50;

/** What the check asks: the configured authorizers (for `escalate` and `bind`) and RBAC's rules (for what the user holds). */
export interface EscalationDependencies {
  authorizer(): Authorizer | undefined;
  rbac(): RbacAuthorizer | undefined;
}

/**
 * Kubernetes' RBAC escalation prevention: a Role or ClusterRole can only be written with rules its
 * writer already holds (in the role's namespace), or with the `escalate` verb on it; a binding only
 * grants a role whose rules its writer holds, or with the `bind` verb on that role. `system:masters`
 * and the server's own writes pass.
 */
export function rbacEscalationCheck(deps: EscalationDependencies): AdmissionPlugin {
  return {
    name: 'RBACEscalation',
    async validate(a: AdmissionAttributes): Promise<void> {
      if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return;
      if (!sameGroup(a.definition.group, RBAC_GROUP) || a.subresource !== '') return;
      const user = a.user;
      const rbac = deps.rbac();
      const authorizer = deps.authorizer();
      if (user === undefined || rbac === undefined || authorizer === undefined || user.groups.includes(SYSTEM_MASTERS_GROUP)) return;
      const resource = a.definition.resource;
      const object = (a.object ?? {}) as Record<string, unknown>;
      const name = a.name || ((object.metadata as { name?: string } | undefined)?.name ?? '');
      if (ROLE_KINDS[resource] !== undefined) {
        if (await allowedTo(authorizer, user, 'escalate', resource, a.namespace, name)) return;
        if (object.aggregationRule !== undefined && object.aggregationRule !== null) {
          throw forbidden(resource, name, `must have cluster-admin privileges to use the aggregationRule`);
        }
        await refuseUnheld(rbac, user, a.namespace, rulesOf(object), resource, name);
        return;
      }
      if (BINDING_KINDS[resource] !== undefined) {
        const roleRef = (object.roleRef ?? {}) as { kind?: string; name?: string };
        const roleResource = roleRef.kind === 'Role' ? 'roles' : 'clusterroles';
        if (await allowedTo(authorizer, user, 'bind', roleResource, a.namespace, roleRef.name ?? '')) return;
        const rules = await rbac.roleRules(roleRef.kind ?? '', roleRef.name ?? '', a.namespace);
        if (rules === undefined) {
          throw forbidden(
            resource,
            name,
            `user ${JSON.stringify(user.name)} cannot bind ${roleResource} ${JSON.stringify(roleRef.name ?? '')}: it was not found`,
          );
        }
        await refuseUnheld(rbac, user, a.namespace, rules, resource, name);
      }
    },
  };
}

async function allowedTo(authorizer: Authorizer, user: UserInfo, verb: string, resource: string, namespace: string, name: string): Promise<boolean> {
  const attributes: AuthorizationAttributes = {
    user,
    verb,
    isResourceRequest: true,
    namespace,
    apiGroup: RBAC_GROUP,
    apiVersion: '',
    resource,
    subresource: '',
    name,
    path: '',
  };
  return (await authorizer.authorize(attributes)).decision === 'allow';
}

async function refuseUnheld(rbac: RbacAuthorizer, user: UserInfo, namespace: string, rules: PolicyRule[], resource: string, name: string): Promise<void> {
  const held = await rbac.rulesHeld(user, namespace);
  const { covered, missing } = covers(held.rules, rules);
  if (covered) return;
  const listed = missing.slice(0, MAX_LISTED_RULES).map(describeRule);
  if (missing.length > MAX_LISTED_RULES) listed.push(`... and ${missing.length - MAX_LISTED_RULES} more`);
  throw forbidden(
    resource,
    name,
    `user ${JSON.stringify(user.name)} (groups=${JSON.stringify(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${listed.join('\n')}`,
  );
}

// Kubernetes prints each missing permission as a compact PolicyRule.
function describeRule(rule: PolicyRule): string {
  const parts: string[] = [];
  if (rule.apiGroups) parts.push(`APIGroups:${JSON.stringify(rule.apiGroups)}`);
  if (rule.resources) parts.push(`Resources:${JSON.stringify(rule.resources)}`);
  if (rule.resourceNames) parts.push(`ResourceNames:${JSON.stringify(rule.resourceNames)}`);
  if (rule.nonResourceURLs) parts.push(`NonResourceURLs:${JSON.stringify(rule.nonResourceURLs)}`);
  parts.push(`Verbs:${JSON.stringify(rule.verbs)}`);
  return `{${parts.join(', ')}}`;
}

function forbidden(resource: string, name: string, detail: string): StatusError {
  return newForbidden({ group: RBAC_GROUP, resource }, name, detail);
}
