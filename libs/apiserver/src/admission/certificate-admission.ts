import { canonicalSignerName, KUBE_APISERVER_CLIENT_SIGNER, parseCertificateRequest, type ApiObject, type CertificateSigningRequest } from '@svc/api';
import { ANONYMOUS_USER, newForbidden, sameGroup } from '@svc/machinery';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';
import type { AdmissionAuthorizer } from './admission-cel';

const CERTIFICATES_GROUP = 'certificates.k8s.io';
const SYSTEM_MASTERS = 'system:masters';

function isCsr(a: AdmissionAttributes): boolean {
  return sameGroup(a.definition.group, CERTIFICATES_GROUP) && a.definition.resource === 'certificatesigningrequests';
}

function signerNameOf(obj: ApiObject | undefined): string {
  return (obj as unknown as CertificateSigningRequest | undefined)?.spec?.signerName ?? '';
}

function forbidden(a: AdmissionAttributes, message: string) {
  const name = a.name || (a.object?.metadata?.name ?? '');
  return newForbidden({ group: a.definition.group, resource: a.definition.resource }, name, message);
}

/**
 * Kubernetes' isAuthorizedForSignerName: `verb` on the `signers` resource named by the signer, or by
 * its domain with `/*` (`example.com/*`), in certificates.k8s.io. Without an authorizer every caller may.
 */
async function mayUseSigner(
  authorizer: AdmissionAuthorizer | undefined,
  a: AdmissionAttributes,
  verb: 'approve' | 'sign',
  signerName: string,
): Promise<boolean> {
  const authz = authorizer?.();
  if (authz === undefined) return true;
  const ask = async (name: string) =>
    (
      await authz.authorize({
        user: a.user ?? ANONYMOUS_USER,
        verb,
        isResourceRequest: true,
        namespace: '',
        apiGroup: CERTIFICATES_GROUP,
        apiVersion: '*',
        resource: 'signers',
        subresource: '',
        name,
        path: '',
      })
    ).decision === 'allow';
  if (await ask(signerName)) return true;
  const slash = signerName.indexOf('/');
  return slash > 0 && (await ask(`${signerName.slice(0, slash)}/*`));
}

/** CertificateApproval: approving or denying (the `approval` subresource) needs `approve` on the request's signer. */
export function certificateApproval(authorizer: AdmissionAuthorizer | undefined): AdmissionPlugin {
  return {
    name: 'CertificateApproval',
    async validate(a) {
      if (a.operation !== 'UPDATE' || a.subresource !== 'approval' || !isCsr(a)) return;
      const signerName = signerNameOf(a.oldObject ?? a.object);
      if (!(await mayUseSigner(authorizer, a, 'approve', signerName))) {
        throw forbidden(a, `user not permitted to approve requests with signerName ${JSON.stringify(signerName)}`);
      }
    },
  };
}

/** CertificateSigning: writing or changing `status.certificate` needs `sign` on the request's signer. */
export function certificateSigning(authorizer: AdmissionAuthorizer | undefined): AdmissionPlugin {
  return {
    name: 'CertificateSigning',
    async validate(a) {
      if (a.operation !== 'UPDATE' || a.subresource !== 'status' || !isCsr(a)) return;
      const before = (a.oldObject as unknown as CertificateSigningRequest | undefined)?.status?.certificate ?? '';
      const after = (a.object as unknown as CertificateSigningRequest | undefined)?.status?.certificate ?? '';
      if (before === after) return;
      const signerName = signerNameOf(a.oldObject ?? a.object);
      if (!(await mayUseSigner(authorizer, a, 'sign', signerName))) {
        throw forbidden(a, `user not permitted to sign requests with signerName ${JSON.stringify(signerName)}`);
      }
    },
  };
}

/** CertificateSubjectRestriction: no request to the API server's client signer may ask for `system:masters`. */
export function certificateSubjectRestriction(): AdmissionPlugin {
  return {
    name: 'CertificateSubjectRestriction',
    validate(a) {
      if (a.operation !== 'CREATE' || a.subresource !== '' || !isCsr(a)) return;
      const signerName = signerNameOf(a.object);
      if (canonicalSignerName(signerName) !== KUBE_APISERVER_CLIENT_SIGNER) return;
      const request = (a.object as unknown as CertificateSigningRequest).spec?.request;
      let organizations: string[];
      try {
        organizations = parseCertificateRequest(Buffer.from(request ?? '', 'base64')).organizations;
      } catch {
        // Validation has refused an unreadable request already.
        return;
      }
      if (organizations.includes(SYSTEM_MASTERS)) throw forbidden(a, `use of ${signerName} signer with system:masters group is not allowed`);
    },
  };
}
