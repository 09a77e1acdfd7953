import { enabledAdmissionPlugins, type AdmissionPluginName } from '@svc/options';
import { AdmissionChain, type AdmissionPlugin } from './admission';
import { mutatingAdmissionWebhook, validatingAdmissionWebhook } from './admission-webhooks';
import type { AdmissionAuthorizer } from './admission-cel';
import { alwaysDeny } from './always';
import { certificateApproval, certificateSigning, certificateSubjectRestriction } from './certificate-admission';
import type { AdmissionConfigurations } from './configuration-source';
import { validatingAdmissionPolicy } from './validating-admission-policy';
import { defaultTolerationSeconds } from './default-toleration-seconds';
import { nodeRestriction } from './node-restriction';
import { namespaceExists, namespaceLifecycle, type NamespaceLookup } from './namespace-lifecycle';
import { priorityAdmission, type PriorityClassLookup } from './priority';
import { podSecurityAdmission, type NamespacePods } from './pod-security';
import { runtimeClassAdmission, type RuntimeClassLookup } from './runtime-class';
import { defaultStorageClassAdmission, persistentVolumeClaimResize, storageObjectInUseProtection, type StorageClassLookup } from './storage-admission';
import { defaultIngressClassAdmission, type IngressClassLookup } from './default-ingress-class';
import { serviceAccountAdmission, type CoreObjectLookup, type ServiceAccountLookup } from './service-account';
import { taintNodesByCondition } from './taint-nodes-by-condition';
import { limitRangerAdmission, type LimitRangeLookup } from './limit-ranger';
import { resourceQuotaAdmission, type ResourceQuotaAccess } from './resource-quota';

export interface AdmissionFlags {
  /** `--enable-admission-plugins`. */
  enableAdmissionPlugins?: readonly AdmissionPluginName[];
  /** `--disable-admission-plugins`. */
  disableAdmissionPlugins?: readonly AdmissionPluginName[];
  /** `--default-not-ready-toleration-seconds` (DefaultTolerationSeconds); 300 when absent. */
  defaultNotReadyTolerationSeconds?: number;
  /** `--default-unreachable-toleration-seconds` (DefaultTolerationSeconds); 300 when absent. */
  defaultUnreachableTolerationSeconds?: number;
}

export interface AdmissionDependencies {
  namespaces: NamespaceLookup;
  /** The ServiceAccount plugin's lookup; without it only named accounts' defaulting happens. */
  serviceAccounts?: ServiceAccountLookup;
  /** NodeRestriction's lookup of the pod a node's token request is bound to; without it such requests are refused. */
  pods?: CoreObjectLookup;
  /** PodSecurity's read of a namespace's pods, to warn of those a new enforce level would refuse. */
  namespacePods?: NamespacePods;
  /** The server issues service account tokens, so the ServiceAccount plugin mounts them into pods. */
  mountServiceAccountTokens?: boolean;
  /** The Priority plugin's read of PriorityClasses; without it only the system classes are known. */
  priorityClasses?: PriorityClassLookup;
  /** The RuntimeClass plugin's read of RuntimeClasses; without it no class is known. */
  runtimeClasses?: RuntimeClassLookup;
  /** The storage plugins' read of StorageClasses; without it no class is known. */
  storageClasses?: StorageClassLookup;
  /** DefaultIngressClass's read of IngressClasses; without it no class is known. */
  ingressClasses?: IngressClassLookup;
  /** The stored admission configurations; without them the webhook and policy plugins are left out. */
  configurations?: AdmissionConfigurations;
  /** The flags plugins read their settings from. */
  flags?: AdmissionFlags;
  /** The server's authorizer (built after admission), for the CEL `authorizer` of policies and match conditions. */
  authorizer?: AdmissionAuthorizer;
  /** The ResourceQuota plugin's reads and status writes of quotas; without them the plugin has nothing to act on. */
  resourceQuotas?: ResourceQuotaAccess;
  /** The LimitRanger plugin's read of LimitRanges; without it the plugin has nothing to act on. */
  limitRanges?: LimitRangeLookup;
}

/** The plugins this server implements; every other accepted name is on or off and does nothing. */
const IMPLEMENTED: Partial<Record<AdmissionPluginName, (deps: AdmissionDependencies) => AdmissionPlugin | undefined>> = {
  NamespaceLifecycle: (deps) => namespaceLifecycle(deps.namespaces),
  NamespaceExists: (deps) => namespaceExists(deps.namespaces),
  AlwaysDeny: () => alwaysDeny(),
  ServiceAccount: (deps) =>
    serviceAccountAdmission(deps.serviceAccounts ?? (() => Promise.resolve({})), { mountTokens: deps.mountServiceAccountTokens !== false }),
  Priority: (deps) => priorityAdmission(deps.priorityClasses),
  MutatingAdmissionWebhook: (deps) =>
    deps.configurations && mutatingAdmissionWebhook({ namespaces: deps.namespaces, authorizer: deps.authorizer, ...deps.configurations }),
  ValidatingAdmissionPolicy: (deps) =>
    deps.configurations && validatingAdmissionPolicy({ namespaces: deps.namespaces, authorizer: deps.authorizer, ...deps.configurations }),
  ValidatingAdmissionWebhook: (deps) =>
    deps.configurations && validatingAdmissionWebhook({ namespaces: deps.namespaces, authorizer: deps.authorizer, ...deps.configurations }),
  DefaultTolerationSeconds: (deps) =>
    defaultTolerationSeconds({
      notReadySeconds: deps.flags?.defaultNotReadyTolerationSeconds,
      unreachableSeconds: deps.flags?.defaultUnreachableTolerationSeconds,
    }),
  TaintNodesByCondition: () => taintNodesByCondition(),
  NodeRestriction: (deps) => nodeRestriction(deps.pods),
  RuntimeClass: (deps) => runtimeClassAdmission(deps.runtimeClasses),
  PodSecurity: (deps) => podSecurityAdmission({ namespaces: deps.namespaces, namespacePods: deps.namespacePods }),
  DefaultStorageClass: (deps) => defaultStorageClassAdmission(deps.storageClasses),
  StorageObjectInUseProtection: () => storageObjectInUseProtection(),
  PersistentVolumeClaimResize: (deps) => persistentVolumeClaimResize(deps.storageClasses),
  DefaultIngressClass: (deps) => defaultIngressClassAdmission(deps.ingressClasses),
  ResourceQuota: (deps) => deps.resourceQuotas && resourceQuotaAdmission(deps.resourceQuotas),
  LimitRanger: (deps) => deps.limitRanges && limitRangerAdmission(deps.limitRanges),
  CertificateApproval: (deps) => certificateApproval(deps.authorizer),
  CertificateSigning: (deps) => certificateSigning(deps.authorizer),
  CertificateSubjectRestriction: () => certificateSubjectRestriction(),
};

/**
 * Plugins that are honoured without code: AlwaysAdmit admits everything, and the others act only on
 * kinds this server does not serve (Ingress), or labels of cloud volumes
 * this server has none of (PersistentVolumeLabel), so nothing reaches them. OwnerReferencesPermissionEnforcement
 * is built beside the chain, with the authorizer.
 */
const HONOURED_WITHOUT_CODE: ReadonlySet<AdmissionPluginName> = new Set<AdmissionPluginName>([
  'AlwaysAdmit',
  'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeLabel',
]);

/** Of `names`, those this server neither implements nor honours without code: enabling one would do nothing. */
/**
 * What this server does with an accepted plugin name: runs code of its own, honours it with nothing to act
 * on (the kinds it guards are not served), or lacks it (enabling it by name is refused).
 */
export function admissionPluginSupport(name: AdmissionPluginName): 'implemented' | 'nothing to act on' | 'not implemented' {
  if (IMPLEMENTED[name] !== undefined) return 'implemented';
  return HONOURED_WITHOUT_CODE.has(name) ? 'nothing to act on' : 'not implemented';
}

export function unimplementedAdmissionPlugins(names: readonly AdmissionPluginName[]): AdmissionPluginName[] {
  return names.filter((name) => IMPLEMENTED[name] === undefined && !HONOURED_WITHOUT_CODE.has(name));
}

/** The admission chain the flags ask for: the defaults plus enabled plugins minus disabled ones, in run order. */
export function buildAdmissionChain(flags: AdmissionFlags, deps: AdmissionDependencies): AdmissionChain {
  const plugins: AdmissionPlugin[] = [];
  for (const name of enabledAdmissionPlugins(flags)) {
    const make = IMPLEMENTED[name];
    const plugin = make?.({ ...deps, flags: deps.flags ?? flags });
    if (plugin !== undefined) plugins.push(plugin);
  }
  return new AdmissionChain(plugins);
}
