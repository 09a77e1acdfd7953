import { CSR_APPROVED, CSR_DENIED, CSR_FAILED, type CertificateSigningRequest, type CertificateSigningRequestCondition } from '@svc/api';

const trueOf = (csr: CertificateSigningRequest, type: string): CertificateSigningRequestCondition | undefined =>
  (csr.status?.conditions ?? []).find((c) => c.type === type && c.status === 'True');

/** Approved and not denied (Kubernetes' IsCertificateRequestApproved). */
export function isApproved(csr: CertificateSigningRequest): boolean {
  return trueOf(csr, CSR_APPROVED) !== undefined && trueOf(csr, CSR_DENIED) === undefined;
}

export function isDenied(csr: CertificateSigningRequest): boolean {
  return trueOf(csr, CSR_DENIED) !== undefined;
}

export function hasFailed(csr: CertificateSigningRequest): boolean {
  return trueOf(csr, CSR_FAILED) !== undefined;
}

export function conditionOf(csr: CertificateSigningRequest, type: string): CertificateSigningRequestCondition | undefined {
  return (csr.status?.conditions ?? []).find((c) => c.type === type);
}

/** The request's PEM, from the base64 of its JSON form. */
export function requestPem(csr: CertificateSigningRequest): string {
  return Buffer.from(csr.spec?.request ?? '', 'base64').toString('latin1');
}

/** A metav1.Time of now (seconds, as the wire carries it). */
export function nowTime(now: number = Date.now()): string {
  return new Date(Math.floor(now / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export { CSR_APPROVED, CSR_DENIED, CSR_FAILED };
