import { Type, type Static } from '@sinclair/typebox';
import { Described, Int32, ListAtomic, ListMap, StringMap } from '../../schema/builders';
import { conditionFieldDescriptions, OptionalTime } from '../../meta/condition';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';

/** Kubernetes' built-in signers (certificates.k8s.io/v1), each also known by the spec's short name. */
export const KUBE_APISERVER_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';
export const KUBE_APISERVER_CLIENT_KUBELET_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
export const KUBELET_SERVING_SIGNER = 'kubernetes.io/kubelet-serving';
export const LEGACY_UNKNOWN_SIGNER = 'kubernetes.io/legacy-unknown';

/**
 * The spec's names of the four signers (the `--cluster-signing-<signer>-*` flags) and the signer
 * names requests carry for them: `svc.io/<name>` is the same signer as Kubernetes' name.
 */
export const BUILT_IN_SIGNERS = {
  'apiserver-client': KUBE_APISERVER_CLIENT_SIGNER,
  'nodeagent-client': KUBE_APISERVER_CLIENT_KUBELET_SIGNER,
  'nodeagent-serving': KUBELET_SERVING_SIGNER,
  'legacy-unknown': LEGACY_UNKNOWN_SIGNER,
} as const;

export type BuiltInSignerName = keyof typeof BUILT_IN_SIGNERS;

/** The domain of the spec's signer names (`svc.io/nodeagent-client`). */
export const SVC_SIGNER_DOMAIN = 'svc.io';

/** Kubernetes' signer name of a request's signer, whichever of the two names it uses. */
export function canonicalSignerName(signerName: string): string {
  if (signerName.startsWith(`${SVC_SIGNER_DOMAIN}/`)) {
    const short = signerName.slice(SVC_SIGNER_DOMAIN.length + 1);
    if (Object.hasOwn(BUILT_IN_SIGNERS, short)) return BUILT_IN_SIGNERS[short as BuiltInSignerName];
  }
  return signerName;
}

/** The key usages a request may ask for, as Kubernetes lists them (sorted, as its messages print them). */
export const KEY_USAGES = [
  'any',
  'cert sign',
  'client auth',
  'code signing',
  'content commitment',
  'crl sign',
  'data encipherment',
  'decipher only',
  'digital signature',
  'email protection',
  'encipher only',
  'ipsec end system',
  'ipsec tunnel',
  'ipsec user',
  'key agreement',
  'key encipherment',
  'microsoft sgc',
  'netscape sgc',
  'ocsp signing',
  's/mime',
  'server auth',
  'signing',
  'timestamping',
] as const;

export type KeyUsage = (typeof KEY_USAGES)[number];

export const CSR_APPROVED = 'Approved';
export const CSR_DENIED = 'Denied';
export const CSR_FAILED = 'Failed';

export const CertificateSigningRequestConditionSchema = Described(
  Type.Object({
    type: Type.String(),
    status: Type.String(),
    reason: Type.Optional(Type.String()),
    message: Type.Optional(Type.String()),
    lastUpdateTime: OptionalTime(),
    lastTransitionTime: OptionalTime(),
  }),
  conditionFieldDescriptions(
    Type.Object({ status: Type.String(), reason: Type.String(), message: Type.String(), lastUpdateTime: Type.String(), lastTransitionTime: Type.String() }),
    '`Approved` or `Denied` (written through the approval subresource, mutually exclusive), or `Failed` (written by the signer through status). None is ever removed.',
  ) as { type: string; status: string; reason: string; message: string; lastUpdateTime: string; lastTransitionTime: string },
  'One condition of a certificate signing request.',
);
export type CertificateSigningRequestCondition = Static<typeof CertificateSigningRequestConditionSchema>;

export const CertificateSigningRequestSpecSchema = Described(
  Type.Object({
    request: Type.String({ format: 'byte' }),
    signerName: Type.String(),
    expirationSeconds: Type.Optional(Int32()),
    usages: Type.Optional(ListAtomic(Type.String())),
    username: Type.Optional(Type.String()),
    uid: Type.Optional(Type.String()),
    groups: Type.Optional(ListAtomic(Type.String())),
    extra: Type.Optional(StringMap(ListAtomic(Type.String()))),
  }),
  {
    request: 'A PKCS#10 certificate request in a `CERTIFICATE REQUEST` PEM block, base64 encoded once more in JSON and YAML.',
    signerName:
      'The signer asked to issue the certificate, a qualified name such as `kubernetes.io/kube-apiserver-client`. Built in: `kubernetes.io/kube-apiserver-client`, `kubernetes.io/kube-apiserver-client-kubelet` and `kubernetes.io/kubelet-serving`, also named `svc.io/apiserver-client`, `svc.io/nodeagent-client` and `svc.io/nodeagent-serving`.',
    expirationSeconds: 'The lifetime asked of the certificate, at least 600; the signer gives no more than its --cluster-signing-duration.',
    usages: 'The key usages asked of the certificate, such as `digital signature`, `key encipherment`, `client auth` or `server auth`.',
    username: 'Who made the request; set by the server when it is created.',
    uid: 'The uid of who made the request; set by the server when it is created.',
    groups: 'The groups of who made the request; set by the server when it is created.',
    extra: 'The extra attributes of who made the request; set by the server when it is created.',
  },
  'What is asked: the request, its signer, lifetime and usages, and who asked. It cannot change.',
);

export const CertificateSigningRequestStatusSchema = Described(
  Type.Object({
    conditions: Type.Optional(ListMap(CertificateSigningRequestConditionSchema, ['type'])),
    certificate: Type.Optional(Type.String({ format: 'byte' })),
  }),
  {
    conditions: 'Whether the request was approved, denied or failed.',
    certificate: 'The issued certificate (PEM, base64 encoded once more in JSON and YAML), written once by the signer after approval.',
  },
  'Where the request stands: its approval and the issued certificate.',
);

export const CertificateSigningRequestSchema = Described(
  Type.Object({
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
    spec: CertificateSigningRequestSpecSchema,
    status: Type.Optional(CertificateSigningRequestStatusSchema),
  }),
  {
    apiVersion: 'certificates.k8s.io/v1.',
    kind: 'CertificateSigningRequest.',
    metadata: "The request's name.",
    spec: 'What is asked.',
    status: 'Where the request stands.',
  },
  'A request for an X.509 certificate, approved or denied through its approval subresource and issued by its signer.',
);
export type CertificateSigningRequest = Static<typeof CertificateSigningRequestSchema>;
export type CertificateSigningRequestList = List<CertificateSigningRequest>;
