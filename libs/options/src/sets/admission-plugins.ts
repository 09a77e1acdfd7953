/** Admission plugins on unless disabled with --disable-admission-plugins. */
export const DEFAULT_ADMISSION_PLUGINS = [
  'NamespaceLifecycle',
  'LimitRanger',
  'ServiceAccount',
  'TaintNodesByCondition',
  'PodSecurity',
  'Priority',
  'DefaultTolerationSeconds',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
] as const;

/** Admission plugins accepted but off unless enabled with --enable-admission-plugins. */
export const OPTIONAL_ADMISSION_PLUGINS = [
  'AlwaysAdmit',
  'AlwaysDeny',
  'AlwaysPullImages',
  'DenyServiceExternalIPs',
  'EventRateLimit',
  'ExtendedResourceToleration',
  'ImagePolicyWebhook',
  'LimitPodHardAntiAffinityTopology',
  'NamespaceAutoProvision',
  'NamespaceExists',
  'NodeRestriction',
  'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeLabel',
  'PodNodeSelector',
  'PodTolerationRestriction',
  'SecurityContextDeny',
] as const;

export type AdmissionPluginName = (typeof DEFAULT_ADMISSION_PLUGINS)[number] | (typeof OPTIONAL_ADMISSION_PLUGINS)[number];

/**
 * Every accepted plugin in the order plugins run. The flags' order does not matter, so the run order is
 * fixed here; it is Kubernetes' recommended order (mutating before validating, quota last but AlwaysDeny).
 */
export const ADMISSION_PLUGIN_ORDER: readonly AdmissionPluginName[] = [
  'AlwaysAdmit',
  'NamespaceAutoProvision',
  'NamespaceLifecycle',
  'NamespaceExists',
  'SecurityContextDeny',
  'LimitPodHardAntiAffinityTopology',
  'LimitRanger',
  'ServiceAccount',
  'NodeRestriction',
  'TaintNodesByCondition',
  'AlwaysPullImages',
  'ImagePolicyWebhook',
  'PodSecurity',
  'PodNodeSelector',
  'Priority',
  'DefaultTolerationSeconds',
  'PodTolerationRestriction',
  'EventRateLimit',
  'ExtendedResourceToleration',
  'PersistentVolumeLabel',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'DenyServiceExternalIPs',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
  'AlwaysDeny',
];

/** The plugins to run, in run order: the defaults plus enabled ones, minus disabled ones. */
export function enabledAdmissionPlugins(options: {
  enableAdmissionPlugins?: readonly AdmissionPluginName[];
  disableAdmissionPlugins?: readonly AdmissionPluginName[];
}): AdmissionPluginName[] {
  const on = new Set<AdmissionPluginName>([...DEFAULT_ADMISSION_PLUGINS, ...(options.enableAdmissionPlugins ?? [])]);
  for (const off of options.disableAdmissionPlugins ?? []) on.delete(off);
  return ADMISSION_PLUGIN_ORDER.filter((p) => on.has(p));
}
