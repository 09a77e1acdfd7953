import { storedNamespace, type ApiObject } from '@svc/api';
import { NAMESPACE_TERMINATING_CAUSE, newForbidden, newNotFound, StatusError } from '@svc/machinery';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';

/** Reads a namespace by name (either of a system namespace's names), as it is now; undefined when there is none. */
export type NamespaceLookup = (name: string) => Promise<ApiObject | undefined>;

/** The namespaces the system needs; deleting them is refused (under their Kubernetes names too, the same namespaces). */
export const IMMORTAL_NAMESPACES: readonly string[] = ['default', 'svc-system', 'svc-public'];

const NAMESPACES = { group: '', resource: 'namespaces' };

function isNamespace(attributes: AdmissionAttributes): boolean {
  return attributes.definition.group === '' && attributes.definition.resource === 'namespaces';
}

function resourceOf(attributes: AdmissionAttributes): { group: string; resource: string } {
  return { group: attributes.definition.group, resource: attributes.definition.resource };
}

/** The name a refusal names: the object's, or its generateName while the name is not made yet. */
function nameOf(attributes: AdmissionAttributes): string {
  return attributes.name || attributes.object?.metadata?.generateName || '';
}

function isTerminating(namespace: ApiObject): boolean {
  return (namespace.status as { phase?: string } | undefined)?.phase === 'Terminating' || !!namespace.metadata?.deletionTimestamp;
}

/**
 * Kubernetes' NamespaceLifecycle: nothing is created in a namespace that does not exist (404) or is
 * being deleted (403), and the system namespaces cannot be deleted (403). Updates and deletes inside
 * a terminating namespace go through, so that its content can be cleaned up.
 */
export function namespaceLifecycle(lookup: NamespaceLookup): AdmissionPlugin {
  return {
    name: 'NamespaceLifecycle',
    async admit(attributes) {
      if (isNamespace(attributes)) {
        if (attributes.operation === 'DELETE' && IMMORTAL_NAMESPACES.includes(storedNamespace(attributes.name))) {
          throw newForbidden(NAMESPACES, attributes.name, 'this namespace may not be deleted');
        }
        return;
      }
      if (attributes.operation !== 'CREATE' || attributes.namespace === '') return;
      const namespace = await lookup(attributes.namespace);
      if (namespace === undefined) throw newNotFound(NAMESPACES, attributes.namespace);
      if (isTerminating(namespace)) {
        const message = `unable to create new content in namespace ${attributes.namespace} because it is being terminated`;
        const refused = newForbidden(resourceOf(attributes), nameOf(attributes), message);
        const details = refused.status.details ?? {};
        throw new StatusError({
          ...refused.status,
          details: { ...details, causes: [{ reason: NAMESPACE_TERMINATING_CAUSE, message, field: 'metadata.namespace' }] },
        });
      }
    },
  };
}

/** Kubernetes' NamespaceExists: every write in a namespace that does not exist is refused with 404. */
export function namespaceExists(lookup: NamespaceLookup): AdmissionPlugin {
  return {
    name: 'NamespaceExists',
    async admit(attributes) {
      if (isNamespace(attributes) || attributes.namespace === '') return;
      if ((await lookup(attributes.namespace)) === undefined) throw newNotFound(NAMESPACES, attributes.namespace);
    },
  };
}
