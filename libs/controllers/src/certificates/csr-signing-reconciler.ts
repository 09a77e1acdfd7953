import { canonicalSignerName, CSR_FAILED, parseCertificateRequest, type CertificateSigningRequest } from '@svc/api';
import { BUILTIN_RESOURCES, Client } from '@svc/client';
import { isConflict, isNotFound } from '@svc/machinery';
import { Reconciler, type Predicate, type Reconcile, type ReconcileContext, type Request, type Result } from '@svc/runtime';
import { hasFailed, isApproved, nowTime, requestPem } from './csr-conditions';
import { builtInSignerCheck } from './signer-rules';
import type { SigningAuthority } from './signing-authority';

export const CSR_SIGNING_RECONCILER_NAME = 'csrsigning';

/** The CA of each built-in signer (by Kubernetes' signer name) and the longest lifetime it gives. */
export class CsrSigningOptions {
  constructor(
    readonly authorities: ReadonlyMap<string, SigningAuthority>,
    /** `--cluster-signing-duration`. */
    readonly maxDurationMs: number,
  ) {}
}

/** Only approved requests without a certificate or a failure concern a signer. */
const toSign: Predicate<CertificateSigningRequest> = (event) =>
  event.type !== 'delete' && isApproved(event.object) && !hasFailed(event.object) && !event.object.status?.certificate;

/**
 * Kubernetes' csrsigning controller: an approved request for one of the built-in signers whose CA is
 * configured gets its certificate, valid for the shorter of `spec.expirationSeconds` and
 * `--cluster-signing-duration`; a request the signer's rules refuse gets a `Failed` condition
 * (SignerValidationFailure) instead. Requests for other signers are left to them.
 */
@Reconciler({ name: CSR_SIGNING_RECONCILER_NAME, for: BUILTIN_RESOURCES.certificateSigningRequests, predicates: [toSign] })
export class CsrSigningReconciler implements Reconcile {
  constructor(
    private readonly client: Client,
    private readonly options: CsrSigningOptions,
  ) {}

  async reconcile({ name }: Request, { cache }: ReconcileContext): Promise<Result> {
    const csr = cache.get(BUILTIN_RESOURCES.certificateSigningRequests, { name });
    if (!csr || !isApproved(csr) || hasFailed(csr) || csr.status?.certificate) return {};
    const signerName = csr.spec?.signerName ?? '';
    const authority = this.options.authorities.get(canonicalSignerName(signerName));
    if (authority === undefined) return {};
    const pem = requestPem(csr);
    // Validation refused unreadable requests: one here was stored before that, and is no one's to sign.
    let request;
    try {
      request = parseCertificateRequest(pem);
    } catch {
      return {};
    }
    const usages = csr.spec?.usages ?? [];
    const check = builtInSignerCheck(signerName, request, usages);
    if (!check.recognized) return {};
    const next = structuredClone(csr);
    if (check.problem !== undefined) {
      const now = nowTime();
      next.status = {
        ...next.status,
        conditions: [
          ...(next.status?.conditions ?? []),
          { type: CSR_FAILED, status: 'True', reason: 'SignerValidationFailure', message: check.problem, lastUpdateTime: now, lastTransitionTime: now },
        ],
      };
    } else {
      const requested = csr.spec?.expirationSeconds;
      const ttl = typeof requested === 'number' ? Math.min(requested * 1000, this.options.maxDurationMs) : this.options.maxDurationMs;
      const certificate = await authority.sign(pem, usages, ttl);
      next.status = { ...next.status, certificate: Buffer.from(certificate).toString('base64') };
    }
    try {
      await this.client.certificateSigningRequests.updateStatus(next);
    } catch (error) {
      // Changed meanwhile (the next event brings it back) or gone.
      if (isConflict(error) || isNotFound(error)) return {};
      throw error;
    }
    return {};
  }
}
