import { X509Certificate } from 'node:crypto';
import { CSR_APPROVED, CSR_DENIED, CSR_FAILED, pemBlocks, type CertificateSigningRequest } from '@svc/api';
import { BUILTIN_RESOURCES, Client } from '@svc/client';
import { isConflict, isNotFound } from '@svc/machinery';
import { Reconciler, type Reconcile, type ReconcileContext, type Request, type Result } from '@svc/runtime';
import { conditionOf } from './csr-conditions';

export const CSR_CLEANER_RECONCILER_NAME = 'csrcleaner';

const HOUR_MS = 60 * 60 * 1000;
/** Kubernetes' cleaner: issued (approved) and denied or failed requests go after an hour, pending ones after a day. */
export const APPROVED_EXPIRATION_MS = HOUR_MS;
export const DENIED_EXPIRATION_MS = HOUR_MS;
export const PENDING_EXPIRATION_MS = 24 * HOUR_MS;

const timeOf = (value: string | undefined) => (value ? Date.parse(value) : NaN);

/** When `csr` is due for deletion (ms since the epoch), or undefined when nothing will ever make it due. */
export function csrDeletionDue(csr: CertificateSigningRequest): number | undefined {
  const due: number[] = [];
  const certificate = csr.status?.certificate ? Buffer.from(csr.status.certificate, 'base64') : undefined;
  const approved = conditionOf(csr, CSR_APPROVED);
  if (certificate && approved) due.push(timeOf(approved.lastUpdateTime) + APPROVED_EXPIRATION_MS);
  for (const type of [CSR_DENIED, CSR_FAILED]) {
    const condition = conditionOf(csr, type);
    if (condition) due.push(timeOf(condition.lastUpdateTime) + DENIED_EXPIRATION_MS);
  }
  if ((csr.status?.conditions ?? []).length === 0) due.push(timeOf(csr.metadata?.creationTimestamp) + PENDING_EXPIRATION_MS);
  if (certificate) {
    const first = pemBlocks(certificate)[0];
    try {
      if (first) due.push(Date.parse(new X509Certificate(first.der).validTo));
    } catch {
      // An unreadable certificate expires by the other rules only.
    }
  }
  const known = due.filter((t) => !Number.isNaN(t));
  return known.length > 0 ? Math.min(...known) : undefined;
}

/**
 * Kubernetes' csrcleaner: deletes requests that were issued an hour ago, denied or failed an hour ago,
 * pending for a day, or whose certificate has expired. Each request is looked at again when it is due.
 */
@Reconciler({ name: CSR_CLEANER_RECONCILER_NAME, for: BUILTIN_RESOURCES.certificateSigningRequests })
export class CsrCleanerReconciler implements Reconcile {
  constructor(private readonly client: Client) {}

  async reconcile({ name }: Request, { cache }: ReconcileContext): Promise<Result> {
    const csr = cache.get(BUILTIN_RESOURCES.certificateSigningRequests, { name });
    if (!csr || csr.metadata?.deletionTimestamp) return {};
    const due = csrDeletionDue(csr);
    if (due === undefined) return {};
    const remaining = due - Date.now();
    if (remaining > 0) return { requeueAfter: Math.min(remaining, HOUR_MS) };
    try {
      await this.client.certificateSigningRequests.delete(name, { preconditions: { uid: csr.metadata?.uid } });
    } catch (error) {
      if (isNotFound(error) || isConflict(error)) return {};
      throw error;
    }
    return {};
  }
}
