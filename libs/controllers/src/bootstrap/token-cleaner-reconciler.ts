import { bootstrapTokenExpiration, isBootstrapTokenSecret, type Secret } from '@svc/api';
import { BUILTIN_RESOURCES, Client } from '@svc/client';
import { isConflict, isNotFound } from '@svc/machinery';
import { Reconciler, type Predicate, type Reconcile, type ReconcileContext, type Request, type Result } from '@svc/runtime';

export const TOKEN_CLEANER_RECONCILER_NAME = 'tokencleaner';
/** Where bootstrap tokens live (Kubernetes' kube-system). */
export const BOOTSTRAP_TOKEN_NAMESPACE = 'svc-system';

const tokens: Predicate<Secret> = (event) =>
  event.type !== 'delete' && event.object.metadata?.namespace === BOOTSTRAP_TOKEN_NAMESPACE && isBootstrapTokenSecret(event.object);

/** Kubernetes' token cleaner: a bootstrap token Secret is deleted once its `expiration` has passed. */
@Reconciler({ name: TOKEN_CLEANER_RECONCILER_NAME, for: BUILTIN_RESOURCES.secrets, predicates: [tokens] })
export class TokenCleanerReconciler implements Reconcile {
  constructor(private readonly client: Client) {}

  async reconcile({ namespace = '', name }: Request, { cache }: ReconcileContext): Promise<Result> {
    const secret = cache.get(BUILTIN_RESOURCES.secrets, { namespace, name });
    if (!secret || secret.metadata?.deletionTimestamp || !isBootstrapTokenSecret(secret)) return {};
    const expiration = bootstrapTokenExpiration(secret);
    if (expiration === undefined) return {};
    const remaining = expiration - Date.now();
    if (remaining > 0) return { requeueAfter: remaining };
    try {
      await this.client.secrets.delete(name, { namespace, preconditions: { uid: secret.metadata?.uid } });
    } catch (error) {
      if (isNotFound(error) || isConflict(error)) return {};
      throw error;
    }
    return {};
  }
}
