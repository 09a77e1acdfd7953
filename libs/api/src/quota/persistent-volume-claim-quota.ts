import { isRecord } from '@svc/machinery';
import { quantityNanoValue } from '../meta/quantity';
import { matchesNoScope, objectCountQuotaResourceName, type QuotaEvaluator } from './quota-evaluator';
import type { ResourceList } from './resource-list';

const CLAIM_COUNT = objectCountQuotaResourceName('', 'persistentvolumeclaims');
const CLAIM_RESOURCES = ['persistentvolumeclaims', 'requests.storage'];
/** `<class>.storageclass.storage.k8s.io/requests.storage`: a claim's use of one storage class. */
export const STORAGE_CLASS_SUFFIX = '.storageclass.storage.k8s.io/';
/** The beta annotation that named a claim's class before spec.storageClassName. */
const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

function claimClass(claim: Record<string, unknown> & { metadata?: { annotations?: Record<string, string> } }): string {
  const annotated = claim.metadata?.annotations?.[BETA_STORAGE_CLASS_ANNOTATION];
  if (annotated !== undefined) return annotated;
  const spec = isRecord(claim.spec) ? claim.spec : {};
  return typeof spec.storageClassName === 'string' ? spec.storageClassName : '';
}

/** What a claim holds of storage: its request, or what a resize already allocated, whichever is more. */
function storageOf(claim: Record<string, unknown>): string | number | undefined {
  const spec = isRecord(claim.spec) ? claim.spec : {};
  const requests = isRecord(spec.resources) && isRecord(spec.resources.requests) ? spec.resources.requests : {};
  const status = isRecord(claim.status) ? claim.status : {};
  const allocated = isRecord(status.allocatedResources) ? status.allocatedResources.storage : undefined;
  const requested = requests.storage as string | number | undefined;
  if (allocated === undefined) return requested;
  if (requested === undefined) return allocated as string | number;
  return (quantityNanoValue(allocated) ?? 0n) > (quantityNanoValue(requested) ?? 0n) ? (allocated as string | number) : requested;
}

/**
 * Kubernetes' persistent volume claim evaluator (persistent_volume_claims.go), written over the object
 * so it serves whenever claims are: counts, requested storage, and both per storage class. A resize
 * (an update asking for more) is charged.
 */
export const persistentVolumeClaimQuotaEvaluator: QuotaEvaluator = {
  group: '',
  resource: 'persistentvolumeclaims',
  handles: (operation, subresource) => (operation === 'CREATE' || operation === 'UPDATE') && subresource === '',
  matchingResources: (names) =>
    names.filter((n) => n === CLAIM_COUNT || CLAIM_RESOURCES.includes(n) || CLAIM_RESOURCES.some((r) => n.endsWith(`${STORAGE_CLASS_SUFFIX}${r}`))),
  matchesScope: matchesNoScope,
  usage(claim) {
    const out: ResourceList = { [CLAIM_COUNT]: '1', persistentvolumeclaims: '1' };
    const storage = storageOf(claim);
    if (storage !== undefined) out['requests.storage'] = storage;
    const cls = claimClass(claim);
    if (cls !== '') {
      out[`${cls}${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`] = '1';
      if (storage !== undefined) out[`${cls}${STORAGE_CLASS_SUFFIX}requests.storage`] = storage;
    }
    return out;
  },
  constraints: () => undefined,
};
