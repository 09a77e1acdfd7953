import { Injectable } from '@nestjs/common';
import type { Namespace, ServiceAccount } from '@svc/api';
import { BUILTIN_RESOURCES, Client } from '@svc/client';
import type { Lister } from '@svc/informers';
import { isAlreadyExists, isForbidden } from '@svc/machinery';
import { Manager, Reconciler, type Reconcile, type Request, type Result } from '@svc/runtime';

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
@Injectable()
@Reconciler({
  name: 'serviceaccount',
  for: BUILTIN_RESOURCES.namespaces,
  watches: [
    {
      resource: BUILTIN_RESOURCES.serviceAccounts,
      mapTo: (account: ServiceAccount) => (account.metadata?.namespace ? [{ name: account.metadata.namespace }] : []),
      predicates: [(event) => event.type === 'delete'],
    },
  ],
})
export class ServiceAccountReconciler implements Reconcile {
  private readonly namespaces: Lister<Namespace>;
  private readonly accounts: Lister<ServiceAccount>;

  constructor(
    manager: Manager,
    private readonly client: Client,
  ) {
    this.namespaces = manager.informerFor(BUILTIN_RESOURCES.namespaces).lister();
    this.accounts = manager.informerFor(BUILTIN_RESOURCES.serviceAccounts).lister();
  }

  async reconcile({ name }: Request): Promise<Result> {
    const namespace = this.namespaces.get(name);
    if (!namespace || !isActiveNamespace(namespace)) return {};
    for (const account of NAMESPACE_SERVICE_ACCOUNTS) {
      if (this.accounts.namespace(name).get(account)) continue;
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
