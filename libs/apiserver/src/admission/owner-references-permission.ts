import type { Scheme } from '@svc/api';
import { newForbidden, sameGroup } from '@svc/machinery';
import type { AuthorizationAttributes, Authorizer } from '../auth/authorizer';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';

export interface OwnerReferencesPermissionDependencies {
  /** The configured authorization modes (built after the plugin). */
  authorizer(): Authorizer | undefined;
  /** Where an owner's kind is found to name its resource. */
  scheme: Scheme;
}

interface OwnerReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
  blockOwnerDeletion?: boolean;
}

// Kubernetes lets these through unchecked: a pod's status writer (the node agent) cannot delete it.
const SKIPPED = new Set(['pods/status']);

/**
 * Kubernetes' OwnerReferencesPermissionEnforcement: whoever changes an object's ownerReferences must
 * be allowed to delete the object, and whoever sets `blockOwnerDeletion` on a reference must be
 * allowed to update the owner's `finalizers` subresource (it keeps the owner from going away).
 */
export function ownerReferencesPermissionEnforcement(deps: OwnerReferencesPermissionDependencies): AdmissionPlugin {
  return {
    name: 'OwnerReferencesPermissionEnforcement',
    async validate(a: AdmissionAttributes): Promise<void> {
      if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return;
      const authorizer = deps.authorizer();
      if (a.user === undefined || authorizer === undefined) return;
      const resource = a.definition.resource;
      if (SKIPPED.has(`${resource}/${a.subresource}`) && sameGroup(a.definition.group, '')) return;
      const refs = ownerReferencesOf(a.object);
      const oldRefs = a.operation === 'UPDATE' ? ownerReferencesOf(a.oldObject) : [];
      if (a.operation === 'CREATE' ? refs.length === 0 : JSON.stringify(refs) === JSON.stringify(oldRefs)) return;
      const name = a.name || (a.object?.metadata?.name ?? '');
      const base = { user: a.user, isResourceRequest: true, path: '' } as const;
      const remove: AuthorizationAttributes = {
        ...base,
        verb: 'delete',
        namespace: a.namespace,
        apiGroup: a.definition.group,
        apiVersion: a.definition.version,
        resource,
        subresource: a.subresource,
        name,
      };
      const removal = await authorizer.authorize(remove);
      if (removal.decision !== 'allow') {
        throw refused(a, name, `cannot set an ownerRef on a resource you can't delete: ${removal.reason}, ${removal.error ?? '<nil>'}`);
      }
      const blockedBefore = new Set(oldRefs.filter((r) => r.blockOwnerDeletion === true).map((r) => r.uid));
      for (const ref of refs) {
        if (ref.blockOwnerDeletion !== true || blockedBefore.has(ref.uid)) continue;
        const owner = deps.scheme.byApiVersionKind(ref.apiVersion ?? '', ref.kind ?? '');
        if (owner === undefined) {
          throw refused(
            a,
            name,
            `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${ref.apiVersion ?? ''} Kind ${ref.kind ?? ''}`,
          );
        }
        const finalize = await authorizer.authorize({
          ...base,
          verb: 'update',
          namespace: owner.namespaced ? a.namespace : '',
          apiGroup: owner.group,
          apiVersion: owner.version,
          resource: owner.resource,
          subresource: 'finalizers',
          name: ref.name ?? '',
        });
        if (finalize.decision !== 'allow') {
          throw refused(
            a,
            name,
            `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${finalize.reason}, ${finalize.error ?? '<nil>'}`,
          );
        }
      }
    },
  };
}

function refused(a: AdmissionAttributes, name: string, message: string) {
  return newForbidden({ group: a.definition.group, resource: a.definition.resource }, name, message);
}

function ownerReferencesOf(object: AdmissionAttributes['object']): OwnerReference[] {
  const refs = object?.metadata?.ownerReferences;
  return Array.isArray(refs) ? refs.filter((r) => typeof r === 'object' && r !== null) : [];
}
