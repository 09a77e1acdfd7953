import { BUILT_IN_SIGNERS, type BuiltInSignerName } from '@svc/api';
import type { ControllerManagerOptions } from '@svc/options';
import type { ControllerDescriptor } from '../controller-descriptor';
import { CSR_APPROVING_RECONCILER_NAME, CsrApprovingReconciler } from './csr-approving-reconciler';
import { CSR_CLEANER_RECONCILER_NAME, CsrCleanerReconciler } from './csr-cleaner-reconciler';
import { CSR_SIGNING_RECONCILER_NAME, CsrSigningOptions, CsrSigningReconciler } from './csr-signing-reconciler';
import { SigningAuthority } from './signing-authority';

export { CsrSigningReconciler, CsrSigningOptions } from './csr-signing-reconciler';
export { CsrApprovingReconciler } from './csr-approving-reconciler';
export { CsrCleanerReconciler, csrDeletionDue } from './csr-cleaner-reconciler';
export { SigningAuthority } from './signing-authority';
export { builtInSignerCheck, kubeletClientProblem, kubeletServingProblem, apiServerClientProblem } from './signer-rules';

/** The per-signer flag pair of a spec signer name (`--cluster-signing-nodeagent-client-cert-file`). */
function signerFiles(flags: ControllerManagerOptions, signer: BuiltInSignerName): { cert?: string; key?: string } {
  const camel = signer.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
  const key = `clusterSigning${camel[0].toUpperCase()}${camel.slice(1)}` as const;
  const values = flags as unknown as Record<string, string | undefined>;
  return { cert: values[`${key}CertFile`] || undefined, key: values[`${key}KeyFile`] || undefined };
}

/**
 * The CA of each signer from the flags: the general pair signs for all four, else each signer's own
 * pair (the flag rules keep them exclusive); a signer without a CA signs nothing.
 */
export async function signingAuthoritiesFromFlags(flags: ControllerManagerOptions): Promise<Map<string, SigningAuthority>> {
  const authorities = new Map<string, SigningAuthority>();
  const general =
    flags.clusterSigningCertFile && flags.clusterSigningKeyFile
      ? await SigningAuthority.fromFiles(flags.clusterSigningCertFile, flags.clusterSigningKeyFile)
      : undefined;
  for (const signer of Object.keys(BUILT_IN_SIGNERS) as BuiltInSignerName[]) {
    const files = signerFiles(flags, signer);
    const authority = files.cert && files.key ? await SigningAuthority.fromFiles(files.cert, files.key) : general;
    if (authority) authorities.set(BUILT_IN_SIGNERS[signer], authority);
  }
  return authorities;
}

/** Issues the certificates of approved requests for the built-in signers, with the `--cluster-signing-*` CAs. */
export const csrSigningController: ControllerDescriptor = {
  name: 'csrsigning',
  reconcilers: [CsrSigningReconciler],
  options: async (flags) => [new CsrSigningOptions(await signingAuthoritiesFromFlags(flags), flags.clusterSigningDuration)],
  concurrency: () => ({ [CSR_SIGNING_RECONCILER_NAME]: 5 }),
};

/** Approves nodes' client certificate requests their creators may make (SubjectAccessReview). */
export const csrApprovingController: ControllerDescriptor = {
  name: 'csrapproving',
  reconcilers: [CsrApprovingReconciler],
  concurrency: () => ({ [CSR_APPROVING_RECONCILER_NAME]: 5 }),
};

/** Deletes requests once done with (an hour after issue or denial, a day pending) or expired. */
export const csrCleanerController: ControllerDescriptor = {
  name: 'csrcleaner',
  reconcilers: [CsrCleanerReconciler],
  concurrency: () => ({ [CSR_CLEANER_RECONCILER_NAME]: 1 }),
};
