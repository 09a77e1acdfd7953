import type { Namespace } from '@svc/api';
import { BUILTIN_RESOURCES, Client } from '@svc/client';
import { isAlreadyExists, isForbidden } from '@svc/machinery';
import { Reconciler, type Reconcile, type ReconcileContext, type Request, type Result } from '@svc/runtime';

/** The accounts every active namespace gets (Kubernetes' default `--service-accounts` list). */
export const NAMESPACE_SERVICE_ACCOUNTS: readonly string[] = ['default'];

/** A namespace that is going away takes no new objects; one without a phase has just been created. */
export function isActiveNamespace(namespace: Namespace): boolean {
  return !namespace.metadata?.deletionTimestamp && (namespace.status?.phase ?? 'Active') === 'Active';
}

/**
 * Kubernetes' serviceaccount controller: every active namespace has a `default` ServiceAccount, made
 * when the namespace appears and made again when someone deletes it. A change of any account wakes
 * its namespace; the namespace is the unit of work.
 */
@Reconciler({
  name: 'serviceaccount',
  for: BUILTIN_RESOURCES.namespaces,
  watches: [
    {
      resource: BUILTIN_RESOURCES.serviceAccounts,
      mapTo: (account) => (account.metadata?.namespace ? [{ name: account.metadata.namespace }] : []),
      predicates: [(event) => event.type === 'delete'],
    },
  ],
})
export class ServiceAccountReconciler implements Reconcile {
  constructor(private readonly client: Client) {}

  async reconcile({ name }: Request, { cache }: ReconcileContext): Promise<Result> {
    const namespace = cache.get(BUILTIN_RESOURCES.namespaces, { name });
    if (!namespace || !isActiveNamespace(namespace)) return {};
    for (const account of NAMESPACE_SERVICE_ACCOUNTS) {
      if (cache.get(BUILTIN_RESOURCES.serviceAccounts, { namespace: name, name: account })) continue;
      try {
        await this.client.serviceAccounts.create({ metadata: { name: account, namespace: name } }, { namespace: name });
      } catch (error) {
        // Made meanwhile by someone else, or the namespace began terminating after the cache showed it.
        if (isAlreadyExists(error) || isForbidden(error)) continue;
        throw error;
      }
    }
    return {};
  }
}
