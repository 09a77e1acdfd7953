import {
  BOOTSTRAP_TOKEN_SECRET_PREFIX,
  bootstrapTokenExpired,
  bootstrapTokenExpiration,
  bootstrapTokenValue,
  CLUSTER_INFO_CONFIG_MAP,
  isBootstrapTokenSecret,
  JWS_SIGNATURE_PREFIX,
  type ConfigMap,
  type Secret,
} from '@svc/api';
import { BUILTIN_RESOURCES, Client } from '@svc/client';
import { isConflict, isNotFound, jsonEqual } from '@svc/machinery';
import { Reconciler, type Reconcile, type ReconcileContext, type Request, type Result } from '@svc/runtime';
import { CompactSign } from 'jose';
import { BOOTSTRAP_TOKEN_NAMESPACE } from './token-cleaner-reconciler';

export const BOOTSTRAP_SIGNER_RECONCILER_NAME = 'bootstrapsigner';
/** Where `cluster-info` is published (Kubernetes' kube-public). */
export const PUBLIC_NAMESPACE = 'svc-public';
const KUBECONFIG_KEY = 'kubeconfig';

/**
 * The detached JWS of `content` with a token (Kubernetes' ComputeDetachedSignature): HS256 keyed by
 * the token's secret, `kid` its id, the payload left out (`header..signature`).
 */
export async function detachedSignature(content: string, tokenId: string, tokenSecret: string): Promise<string> {
  const jws = await new CompactSign(new TextEncoder().encode(content))
    .setProtectedHeader({ alg: 'HS256', kid: tokenId })
    .sign(new TextEncoder().encode(tokenSecret));
  const [header, , signature] = jws.split('.');
  return `${header}..${signature}`;
}

const toClusterInfo = () => [{ namespace: PUBLIC_NAMESPACE, name: CLUSTER_INFO_CONFIG_MAP }];

/**
 * Kubernetes' bootstrap signer: the `cluster-info` ConfigMap of the public namespace carries, for
 * each bootstrap token usable for signing and not expired, `jws-kubeconfig-<id>`, a detached JWS of
 * its `kubeconfig` made with the token, so that a node joining with the token can trust the cluster's
 * CA it reads there. Signatures of tokens that are gone or expired are removed.
 */
@Reconciler({
  name: BOOTSTRAP_SIGNER_RECONCILER_NAME,
  for: BUILTIN_RESOURCES.configMaps,
  predicates: [(event) => event.object.metadata?.namespace === PUBLIC_NAMESPACE && event.object.metadata?.name === CLUSTER_INFO_CONFIG_MAP],
  watches: [
    {
      resource: BUILTIN_RESOURCES.secrets,
      mapTo: (secret: Secret) => (secret.metadata?.namespace === BOOTSTRAP_TOKEN_NAMESPACE && isBootstrapTokenSecret(secret) ? toClusterInfo() : []),
    },
  ],
})
export class BootstrapSignerReconciler implements Reconcile {
  constructor(private readonly client: Client) {}

  async reconcile({ namespace = '', name }: Request, { cache }: ReconcileContext): Promise<Result> {
    const configMap = cache.get(BUILTIN_RESOURCES.configMaps, { namespace, name });
    const content = configMap?.data?.[KUBECONFIG_KEY];
    if (!configMap || configMap.metadata?.deletionTimestamp || content === undefined) return {};
    const now = Date.now();
    const signatures: Record<string, string> = {};
    let nextExpiry = Infinity;
    for (const secret of cache.lister(BUILTIN_RESOURCES.secrets).namespace(BOOTSTRAP_TOKEN_NAMESPACE).list()) {
      if (!isBootstrapTokenSecret(secret) || secret.metadata?.deletionTimestamp) continue;
      if (bootstrapTokenValue(secret, 'usage-bootstrap-signing') !== 'true' || bootstrapTokenExpired(secret, now)) continue;
      const id = bootstrapTokenValue(secret, 'token-id') ?? '';
      const tokenSecret = bootstrapTokenValue(secret, 'token-secret') ?? '';
      if (secret.metadata?.name !== `${BOOTSTRAP_TOKEN_SECRET_PREFIX}${id}` || !/^[a-z0-9]{16}$/.test(tokenSecret)) continue;
      signatures[`${JWS_SIGNATURE_PREFIX}${id}`] = await detachedSignature(content, id, tokenSecret);
      nextExpiry = Math.min(nextExpiry, bootstrapTokenExpiration(secret) ?? Infinity);
    }
    const data: Record<string, string> = Object.fromEntries(Object.entries(configMap.data ?? {}).filter(([key]) => !key.startsWith(JWS_SIGNATURE_PREFIX)));
    Object.assign(data, signatures);
    // A token that expires drops its signature then.
    const result: Result = Number.isFinite(nextExpiry) ? { requeueAfter: Math.max(1_000, nextExpiry - now) } : {};
    if (jsonEqual(data, configMap.data ?? {})) return result;
    const next: ConfigMap = { ...structuredClone(configMap), data };
    try {
      await this.client.configMaps.update(next, { namespace });
    } catch (error) {
      if (isConflict(error) || isNotFound(error)) return {};
      throw error;
    }
    return result;
  }
}
