import {
  canonicalSignerName,
  KUBE_APISERVER_CLIENT_KUBELET_SIGNER,
  KUBE_APISERVER_CLIENT_SIGNER,
  KUBELET_SERVING_SIGNER,
  LEGACY_UNKNOWN_SIGNER,
  type CertificateRequestInfo,
} from '@svc/api';

const NODE_USER_PREFIX = 'system:node:';
const NODES_GROUP = 'system:nodes';

const sameSet = (a: readonly string[], b: readonly string[]) => {
  const set = new Set(a);
  return set.size === b.length && b.every((x) => set.has(x));
};

const KUBELET_SERVING_USAGES = ['digital signature', 'key encipherment', 'server auth'];
const KUBELET_SERVING_USAGES_NO_RSA = ['digital signature', 'server auth'];
const KUBELET_CLIENT_USAGES = ['digital signature', 'key encipherment', 'client auth'];
const KUBELET_CLIENT_USAGES_NO_RSA = ['digital signature', 'client auth'];

/** Go's `%v` of a sorted string set, as Kubernetes' messages print the usages they wanted. */
const goList = (values: readonly string[]) => `[${[...values].sort().join(' ')}]`;

/** ValidateKubeletServingCSR: a node's serving certificate (O system:nodes, CN system:node:<name>, DNS or IP names only). */
export function kubeletServingProblem(req: CertificateRequestInfo, usages: readonly string[]): string | undefined {
  if (req.organizations.length !== 1 || req.organizations[0] !== NODES_GROUP) return 'subject organization is not system:nodes';
  if (req.dnsNames.length === 0 && req.ipAddresses.length === 0) return 'DNS or IP subjectAltName is required';
  if (req.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (req.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!sameSet(usages, KUBELET_SERVING_USAGES) && !sameSet(usages, KUBELET_SERVING_USAGES_NO_RSA))
    return `usages did not match ${goList(KUBELET_SERVING_USAGES)}`;
  if (!req.commonName.startsWith(NODE_USER_PREFIX)) return 'subject common name does not begin with system:node:';
  return undefined;
}

/** ValidateKubeletClientCSR: a node's client certificate (O system:nodes, CN system:node:<name>, no alternative names). */
export function kubeletClientProblem(req: CertificateRequestInfo, usages: readonly string[]): string | undefined {
  if (req.organizations.length !== 1 || req.organizations[0] !== NODES_GROUP) return 'subject organization is not system:nodes';
  if (req.dnsNames.length > 0) return 'DNS subjectAltNames are not allowed';
  if (req.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (req.ipAddresses.length > 0) return 'IP subjectAltNames are not allowed';
  if (req.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!req.commonName.startsWith(NODE_USER_PREFIX)) return 'subject common name does not begin with system:node:';
  if (!sameSet(usages, KUBELET_CLIENT_USAGES) && !sameSet(usages, KUBELET_CLIENT_USAGES_NO_RSA)) return `usages did not match ${goList(KUBELET_CLIENT_USAGES)}`;
  return undefined;
}

/** validAPIServerClientUsages: client auth required; digital signature and key encipherment allowed beside it. */
export function apiServerClientProblem(usages: readonly string[]): string | undefined {
  let clientAuth = false;
  for (const usage of usages) {
    if (usage === 'client auth') clientAuth = true;
    else if (usage !== 'digital signature' && usage !== 'key encipherment') return `invalid usage for client certificate: ${usage}`;
  }
  return clientAuth ? undefined : 'missing required usage for client certificate: client auth';
}

/**
 * Whether a request is for one of the built-in signers (either name), and if so what is wrong with it
 * for that signer (Kubernetes' isRequestForSignerFn): `recognized` false leaves it to another signer.
 */
export function builtInSignerCheck(signerName: string, req: CertificateRequestInfo, usages: readonly string[]): { recognized: boolean; problem?: string } {
  switch (canonicalSignerName(signerName)) {
    case KUBELET_SERVING_SIGNER:
      return { recognized: true, problem: kubeletServingProblem(req, usages) };
    case KUBE_APISERVER_CLIENT_KUBELET_SIGNER:
      return { recognized: true, problem: kubeletClientProblem(req, usages) };
    case KUBE_APISERVER_CLIENT_SIGNER:
      return { recognized: true, problem: apiServerClientProblem(usages) };
    // No restrictions, for compatibility, as Kubernetes keeps it.
    case LEGACY_UNKNOWN_SIGNER:
      return { recognized: true };
    default:
      return { recognized: false };
  }
}

/** IsKubeletClientCSR: the request is a node's client certificate request. */
export function isKubeletClientRequest(req: CertificateRequestInfo, usages: readonly string[]): boolean {
  return kubeletClientProblem(req, usages) === undefined;
}
