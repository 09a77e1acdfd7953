import { NODE_LEASE_NAMESPACE } from '@svc/api';
import { sameGroup } from '@svc/machinery';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer, RuleResolver } from '../authorizer';
import { NODE_RULES } from '../rbac/bootstrap-policy';
import { ruleAllows } from '../rbac/policy-rules';
import type { UserInfo } from '@svc/machinery';
import type { NodeGraph, NodeReachableKind } from './node-graph';

export const NODES_GROUP = 'system:nodes';
const NODE_USER_PREFIX = 'system:node:';
/** Where node agents keep their heartbeat Leases. */

const NO_OPINION: AuthorizationResult = { decision: 'noOpinion', reason: '' };
const ALLOW: AuthorizationResult = { decision: 'allow', reason: '' };
const READ_VERBS = new Set(['get', 'list', 'watch']);

/** The node a caller acts for: `system:node:<name>` in `system:nodes`; undefined for anyone else. */
export function nodeNameOf(user: UserInfo): string | undefined {
  if (!user.name.startsWith(NODE_USER_PREFIX) || !user.groups.includes(NODES_GROUP)) return undefined;
  return user.name.slice(NODE_USER_PREFIX.length);
}

function noOpinion(reason: string): AuthorizationResult {
  return { decision: 'noOpinion', reason };
}

/**
 * Kubernetes' Node authorizer: a node agent may read only the Secrets, ConfigMaps, claims, volumes and
 * ServiceAccounts (and request their tokens) that the pods bound to it reference, reach only its own
 * Node and Lease, and otherwise holds the `system:node` role's rules (writes there are narrowed by the
 * NodeRestriction admission plugin). It never denies: what it does not allow goes on to the next mode.
 */
export class NodeAuthorizer implements Authorizer, RuleResolver {
  readonly name = 'Node';

  constructor(
    private readonly graph: NodeGraph,
    private readonly synced: () => boolean = () => true,
  ) {}

  /** As Kubernetes': a node's own rules depend on its pods and are not listed; anyone else gets none from this mode. */
  rulesFor(user: UserInfo): ReturnType<RuleResolver['rulesFor']> {
    if (nodeNameOf(user) === undefined) return Promise.resolve({ resourceRules: [], nonResourceRules: [], incomplete: false });
    return Promise.resolve({
      resourceRules: [],
      nonResourceRules: [],
      incomplete: true,
      evaluationError: 'node authorizer does not support user rule resolution',
    });
  }

  authorize(a: AuthorizationAttributes): AuthorizationResult {
    const node = nodeNameOf(a.user);
    if (node === undefined) return NO_OPINION;
    if (node === '') return noOpinion('unknown node');
    if (!a.isResourceRequest) return ruleAllowed(a) ? ALLOW : NO_OPINION;
    if (sameGroup(a.apiGroup, '')) {
      switch (a.resource) {
        case 'secrets':
        case 'configmaps':
          return this.readReferenced(node, a, a.resource, true);
        case 'persistentvolumeclaims':
          // A node updates the status of its pods' claims as it expands their filesystems (NodeRestriction narrows it).
          if (a.subresource === 'status') return this.statusUpdate(node, a, 'persistentvolumeclaims');
          return this.readReferenced(node, a, a.resource, false);
        case 'persistentvolumes':
          return this.readReferenced(node, a, a.resource, false);
        case 'serviceaccounts':
          return this.serviceAccount(node, a);
        case 'nodes':
          return ownNode(node, a);
      }
    }
    if (sameGroup(a.apiGroup, 'coordination.k8s.io') && a.resource === 'leases') return ownLease(node, a);
    if (sameGroup(a.apiGroup, 'storage.k8s.io') && a.resource === 'volumeattachments') return this.readReferenced(node, a, 'volumeattachments', false);
    if (sameGroup(a.apiGroup, 'storage.k8s.io') && a.resource === 'csinodes') return ownCSINode(node, a);
    return ruleAllowed(a) ? ALLOW : NO_OPINION;
  }

  private readReferenced(node: string, a: AuthorizationAttributes, kind: NodeReachableKind, listable: boolean): AuthorizationResult {
    if (listable ? !READ_VERBS.has(a.verb) : a.verb !== 'get')
      return noOpinion(`can only ${listable ? 'get, list or watch' : 'get'} individual resources of this type`);
    if (a.subresource !== '') return noOpinion('cannot get subresource');
    // A list or watch is allowed for one named object only (a `metadata.name` field selector).
    if (a.name === '') return noOpinion('can only read individual resources of this type');
    return this.related(node, kind, a);
  }

  private statusUpdate(node: string, a: AuthorizationAttributes, kind: NodeReachableKind): AuthorizationResult {
    if (a.verb !== 'update' && a.verb !== 'patch') return noOpinion('can only get/update/patch this type');
    return this.related(node, kind, a);
  }

  private serviceAccount(node: string, a: AuthorizationAttributes): AuthorizationResult {
    if (a.subresource === 'token') {
      if (a.verb !== 'create') return noOpinion('can only create tokens for individual service accounts');
      return this.related(node, 'serviceaccounts', a);
    }
    if (a.subresource !== '' || a.verb !== 'get' || a.name === '') return noOpinion('can only get individual service accounts');
    return this.related(node, 'serviceaccounts', a);
  }

  private related(node: string, kind: NodeReachableKind, a: AuthorizationAttributes): AuthorizationResult {
    if (!this.synced()) return noOpinion('node authorizer is not ready yet');
    return this.graph.reaches(node, kind, a.namespace, a.name) ? ALLOW : noOpinion(`no relationship found between node '${node}' and this object`);
  }
}

function ruleAllowed(a: AuthorizationAttributes): boolean {
  return NODE_RULES.some((rule) => ruleAllows(a, rule));
}

/**
 * Its own CSINode (authorizeCSINode): the name of a create is not known here, so NodeRestriction
 * refuses a create of another node's.
 */
function ownCSINode(node: string, a: AuthorizationAttributes): AuthorizationResult {
  if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return noOpinion('can only get, create, update, patch, or delete a CSINode');
  if (a.subresource !== '') return noOpinion('cannot authorize CSINode subresources');
  if (a.verb !== 'create' && a.name !== node) return noOpinion('can only access CSINode with the same name as the requesting node');
  return ruleAllowed(a) ? ALLOW : NO_OPINION;
}

/** Its own Node and its status; creating it (registration; NodeRestriction checks the name). */
function ownNode(node: string, a: AuthorizationAttributes): AuthorizationResult {
  if (a.verb === 'create' && a.subresource === '') return ruleAllowed(a) ? ALLOW : NO_OPINION;
  if (a.subresource !== '' && a.subresource !== 'status') return NO_OPINION;
  if (a.name !== node) return noOpinion(`node '${node}' cannot ${a.verb} '${a.name}', only its own Node object`);
  return ruleAllowed(a) ? ALLOW : NO_OPINION;
}

/** Kubernetes' authorizeLease: only in the node lease namespace (svc-node-lease), and only the node's own (creation is checked by NodeRestriction). */
function ownLease(node: string, a: AuthorizationAttributes): AuthorizationResult {
  if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return noOpinion(`can only get, create, update, patch, or delete a node lease`);
  if (a.namespace !== NODE_LEASE_NAMESPACE) return noOpinion(`can only access leases in the ${NODE_LEASE_NAMESPACE} namespace`);
  if (a.verb !== 'create' && a.name !== node) return noOpinion('can only access node lease with the same name as the requesting node');
  return ALLOW;
}
