import { canonicalSignerName, CSR_APPROVED, KUBE_APISERVER_CLIENT_KUBELET_SIGNER, parseCertificateRequest, type CertificateSigningRequest } from '@svc/api';
import { BUILTIN_RESOURCES, Client } from '@svc/client';
import { isConflict, isNotFound } from '@svc/machinery';
import { Reconciler, type Predicate, type Reconcile, type ReconcileContext, type Request, type Result } from '@svc/runtime';
import { conditionOf, nowTime, requestPem } from './csr-conditions';
import { isKubeletClientRequest } from './signer-rules';

export const CSR_APPROVING_RECONCILER_NAME = 'csrapproving';

/** What a request's creator must be allowed, and what the approval says, for each kind of node client request. */
const RECOGNIZERS = [
  {
    // A node renewing its own certificate: the requester is the node the certificate names.
    subresource: 'selfnodeclient',
    recognizes: (csr: CertificateSigningRequest, commonName: string) => csr.spec?.username === commonName,
    message: 'Auto approving self kubelet client certificate after SubjectAccessReview.',
  },
  {
    // A node's first certificate, asked with a bootstrap token.
    subresource: 'nodeclient',
    recognizes: () => true,
    message: 'Auto approving kubelet client certificate after SubjectAccessReview.',
  },
] as const;

const undecided: Predicate<CertificateSigningRequest> = (event) =>
  event.type !== 'delete' && !event.object.status?.certificate && !conditionOf(event.object, CSR_APPROVED) && !conditionOf(event.object, 'Denied');

interface SubjectAccessReviewAnswer {
  status?: { allowed?: boolean };
}

/**
 * Kubernetes' csrapproving controller (the SubjectAccessReview approver): a node's client certificate
 * request (signer kube-apiserver-client-kubelet, CN system:node:<name>, O system:nodes, client usages)
 * is approved when its creator may create `certificatesigningrequests/selfnodeclient` (a node renewing
 * its own) or `certificatesigningrequests/nodeclient` (a bootstrap token asking a node's first). Every
 * other request waits for someone to approve or deny it.
 */
@Reconciler({ name: CSR_APPROVING_RECONCILER_NAME, for: BUILTIN_RESOURCES.certificateSigningRequests, predicates: [undecided] })
export class CsrApprovingReconciler implements Reconcile {
  constructor(private readonly client: Client) {}

  async reconcile({ name }: Request, { cache }: ReconcileContext): Promise<Result> {
    const csr = cache.get(BUILTIN_RESOURCES.certificateSigningRequests, { name });
    if (!csr || csr.status?.certificate || conditionOf(csr, CSR_APPROVED) || conditionOf(csr, 'Denied')) return {};
    if (canonicalSignerName(csr.spec?.signerName ?? '') !== KUBE_APISERVER_CLIENT_KUBELET_SIGNER) return {};
    let request;
    try {
      request = parseCertificateRequest(requestPem(csr));
    } catch {
      return {};
    }
    if (!isKubeletClientRequest(request, csr.spec?.usages ?? [])) return {};
    for (const recognizer of RECOGNIZERS) {
      if (!recognizer.recognizes(csr, request.commonName)) continue;
      if (!(await this.allowed(csr, recognizer.subresource))) continue;
      const now = nowTime();
      const next = structuredClone(csr);
      next.status = {
        ...next.status,
        conditions: [
          ...(next.status?.conditions ?? []),
          { type: CSR_APPROVED, status: 'True', reason: 'AutoApproved', message: recognizer.message, lastUpdateTime: now, lastTransitionTime: now },
        ],
      };
      try {
        await this.client.certificateSigningRequests.updateSubresource(next, 'approval');
      } catch (error) {
        if (isConflict(error) || isNotFound(error)) return {};
        throw error;
      }
      return {};
    }
    // Recognized but not allowed: someone may still approve it by hand (or grant the permission).
    return {};
  }

  private async allowed(csr: CertificateSigningRequest, subresource: string): Promise<boolean> {
    const spec = csr.spec;
    const answer = await this.client.rest.request<SubjectAccessReviewAnswer>({
      method: 'POST',
      path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: spec?.username,
          uid: spec?.uid,
          groups: spec?.groups,
          extra: spec?.extra,
          resourceAttributes: { group: 'certificates.k8s.io', resource: 'certificatesigningrequests', verb: 'create', subresource, version: '*' },
        },
      },
    });
    return answer?.status?.allowed === true;
  }
}
